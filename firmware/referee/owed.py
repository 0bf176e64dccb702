"""Owed turns: turns played elsewhere (on the other board of a remote match, or chosen by the
board itself) are accepted at once and owed until hands make them; the board shows what to
take and where to put it until it matches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from magboard.firmware.events import Illegal, Note, Obligation, Partial, RemoteMade, Restored
from magboard.firmware.games import CARRY_OUT, PASS, State
from magboard.firmware.profiles import Difference
from magboard.hardware.spec import Place

from .announce import labels, moved_event
from .history import Turn, notation
from .matcher import SearchLimitError
from .remote_log import RemoteError, follow
from .status import Phase


@dataclass(frozen=True)
class Owed:
    """Turns played on the other board of a remote match, accepted here and not yet made by
    hand: the board shows what to take and where to put it until it matches."""

    since: State
    """The position the hands make them from."""
    turns: tuple[Turn, ...]
    places: frozenset[Place]
    """The places they change (every slot of a supply they take from or fill): what the
    hands may touch in making them."""
    again: bool = False
    """Owed again after a restart: the board may have missed them made while it was off."""


def _ends_turn(state: State, actions: Sequence[str]) -> bool:
    """Whether `actions`, in notation, end the turn in play at `state` (an illegal one, or a
    turn that goes on, does not)."""
    after = state
    for text in actions:
        action = after.parse_action(text)
        if not after.is_legal(action):
            return False
        after = after.apply(action)
    return after.turn != state.turn or after.outcome() is not None


class Owing:
    """The `Referee`'s job of owed turns (the state it works on is the referee's)."""

    @property
    def owed(self) -> Owed | None:
        """The other board's turns accepted here and not yet made by hand."""
        return self._owed

    def board_move(self, actions: Sequence[str], now: float, raw: int) -> None:
        """The board's turn for the seat `board_to_play` names, as `Opponent.choose` gives it:
        a choice in another seat's turn is taken at once (nothing moves on the board); a whole
        turn is accepted (a `move`) and owed until hands make it, as a remote board's is; a
        turn that hands a decision to a person is made in parts (`_board_part`)."""
        seat = self.board_to_play
        if seat is None:
            raise RemoteError("the board has no turn to play now")
        if self.position.to_move != seat:  # a choice the rules give it in a person's turn
            for text in actions:
                action = self.position.parse_action(text)
                if action not in self.position.choices():
                    raise RemoteError(f"{text} is not a choice open to the board")
                self._take_choice(action, now)
            return
        if self._partial or not _ends_turn(self.position, actions):
            self._board_part(actions, now, raw)
            return
        self.remote_move([tuple(actions)], now, raw)

    def _board_part(self, actions: Sequence[str], now: float, raw: int) -> None:
        """A part of the board's turn: up to where the rules hand a decision to a person (the
        Actress has the leading players destroy an icon each), or the rest after it. It is
        accepted at once (a `partial`, or the `move` that ends the turn) and owed until hands
        make it; then the person decides, and the board plays on from there."""
        start, seat = self.position, self.position.to_move
        state, part = start, []
        for text in actions:
            action = state.parse_action(text)
            if action == CARRY_OUT:
                raise RemoteError(f"{text}: the board's turn in parts leaves nothing to carry out")
            state = state.apply(action)
            part.append(action)
        if not part:
            raise RemoteError("the board's part of its turn is empty")
        turn = (*self._partial, *part)
        self.position = state
        if _ends_turn(start, actions):
            self.history.append(Turn(self.turn_start, seat, turn))
            self._partial = ()
            self.emit(moved_event(now, seat, notation(turn), state))
            self._pass_while_forced(now)
        else:
            self._partial = turn
            self.emit(Partial(now, seat, notation(turn)))
        self._owe(now, raw, start, (Turn(start, seat, tuple(part)),))

    def remote_move(self, turns: Sequence[Sequence[str]], now: float, raw: int) -> None:
        """The next turns of the log, played on the other board: accepted at once (a `move`
        each, journalled like any), then owed: the board shows what to take and where to put
        it (`raw` is the board as it is now) until it matches, and the next turn waits.
        RemoteError, with nothing changed, if they cannot follow this position."""
        if self.status.phase == Phase.STOPPED:
            raise RemoteError("the match is stopped on this board")
        first = len(self.history) + 1
        if self._partial or self.position.obligations:
            raise RemoteError(f"move {first} is being made on this board")
        state, followed = self.position, []
        for seq, turn in enumerate(turns, start=first):
            step = follow(state, turn, seq)
            followed.append(step)
            state = step.after
        if not followed:
            return
        owed = self._owed
        since = owed.since if owed is not None else self.position
        made = []
        for step in followed:
            made.append(Turn(step.start, step.player, step.actions))
            self.history.append(made[-1])
            self.position = step.after
            self.emit(moved_event(now, step.player, notation(step.actions), step.after))
        self._pass_while_forced(now)
        earlier = owed.turns if owed is not None else ()
        self._owe(now, raw, since, (*earlier, *made))

    def _show_owed(self, now: float, raw: int) -> bool:
        """After a restart: the other board's last turns, if the board does not show them yet,
        are owed again. True if they are."""
        profile = self.profile
        if self.seats is None or self.position.obligations or self._clearing:
            return False
        frame = profile.canonical(raw)
        if frame == profile.render(self.position):
            return False
        held = profile.lifted_from(frame, self.position)
        if held is not None and all(isinstance(spot, str) for spot in held):
            # Every cell shows the turns made; only a supply is short: a hand holds a piece for
            # the next move (from a stash both players draw on, a supply those turns also took
            # from), which is no reason to owe them again.
            return False
        turns = self._board_part_made() if self._partial else self._turns_made_elsewhere()
        if not turns:
            return False
        difference = self._difference(raw, self.position)
        changed = {*difference.remove, *(place for place, _ in difference.put_back)}
        if not changed <= self._changed_by(turns):
            return False  # not (only) their turns: a mismatch, or a hand with the next move
        self._owe(now, raw, turns[0].start, tuple(turns), again=True)
        return True

    def _board_part_made(self) -> list[Turn]:
        """In the middle of the board's turn made in parts: its last part (the actions since a
        person last decided), as a turn owed; nothing if a person decided last."""
        state, part, since = self.turn_start, [], self.turn_start
        for action in self._partial:
            actor = state.to_move if state.chooser is None else state.chooser
            if actor not in self.board_seats:
                part, since = [], state.apply(action)
            else:
                part.append(action)
            state = state.apply(action)
        return [Turn(since, since.to_move, tuple(part))] if part else []

    def _owe(
        self, now: float, raw: int, since: State, turns: tuple[Turn, ...], again: bool = False
    ) -> None:
        profile = self.profile
        frame = profile.canonical(raw)
        self._anchor(self._turn_began(), frame)  # what the hands bring from here on is seen arrive
        self._owed = Owed(since, turns, self._changed_by(turns), again)
        if frame == profile.render(self.position):
            self._made(now, frame)
            return
        shown = self._owing(now, self._difference(raw, self.position))
        places = frozenset((*shown.remove, *(place for place, _ in shown.put_back)))
        owed = tuple(
            {"player": turn.player, "actions": list(notation(turn.actions))}
            for turn in turns
            if turn.actions != (PASS,)
        )
        detail, lit = self._owed_detail(), tuple(labels(places))
        self.emit(Obligation(now, turns[-1].player, detail, lit, owed, bool(self.board_seats)))
        self._judge_owed(raw, frame, now, stable=True)  # anything else already wrong is said

    def _turn_began(self) -> State:
        """Where the turn in play began: the position, or, in the middle of the board's turn
        made in parts, the start of that turn (a person's choice in it is judged from there)."""
        return self.turn_start if self._partial else self.position

    def _changed_by(self, turns: Sequence[Turn]) -> frozenset[Place]:
        """The places the turns change, one action after another: where pieces leave or land
        (every slot of a supply), and the cells a tile covers on its way."""
        profile, places = self.profile, set()
        for turn in turns:
            state = turn.start
            for action in turn.actions:
                before, state = profile.layout(state), state.apply(action)
                after = profile.layout(state)
                moved = profile.layout_change(before, after)
                places |= profile.places_of(moved.lifted | moved.placed)
                for spot in set(before.tiles) ^ set(after.tiles):
                    places.update((*spot.cells, spot.key))
        return frozenset(places)

    def _owing(self, now: float, difference: Difference) -> Difference:
        """Lights what is left to make of the owed turns (not what a hand holds for later)."""
        assert self._owed is not None
        places = self._owed.places
        shown = Difference(
            tuple(place for place in difference.remove if place in places),
            tuple((place, owner) for place, owner in difference.put_back if place in places),
        )
        if self.status.phase != Phase.OBLIGATION or shown != self.status.difference:
            lit = frozenset((*shown.remove, *(place for place, _ in shown.put_back)))
            self.status = self._status(Phase.OBLIGATION, now, obligation=lit, difference=shown)
        return shown

    def _owed_detail(self) -> str:
        assert self._owed is not None
        seats = self.game.seats
        if self.board_seats:
            return f"{self._board_played()}: make it"
        played = [
            f"{seats[turn.player]} played {' '.join(notation(turn.actions))}"
            for turn in self._owed.turns
            if turn.actions != (PASS,)
        ]
        return f"{', then '.join(played)} on the other board: make it here"

    def _board_played(self) -> str:
        """The board's own owed turns: "the board plays O: Sb2" (and "then ..." for more)."""
        assert self._owed is not None
        seats = self.game.seats
        played = [
            f"{seats[turn.player]}: {' '.join(notation(turn.actions))}"
            for turn in self._owed.turns
            if turn.actions != (PASS,)
        ]
        return f"the board plays {', then '.join(played)}"

    def _judge_owed(self, raw: int, frame: int, now: float, stable: bool) -> None:
        """Waiting for the hands to make the other board's turns. Anything within the places
        they change is on the way; once the board settles, anything else is a mistake."""
        owed, profile = self._owed, self.profile
        assert owed is not None
        if frame == profile.render(self.position):
            self._made(now, frame)
            return
        early = profile.lifted_from(frame, self.position)
        if early is not None and not profile.places_of(early) & owed.places:
            # Made, while the next player already holds a piece for the next turn.
            self._made(now, frame)
            if self.is_local_seat(self.position.to_move) and self.position.outcome() is None:
                self._in_hand(early, now, raw)
            return
        if stable and owed.again and self._moved_on(frame):
            self._made(now, frame)
            self._judge_settled(raw, frame, now, profile.lifted_from(frame, self.position))
            return
        difference = self._difference(raw, self.position)
        changed = {*difference.remove, *(place for place, _ in difference.put_back)}
        if changed <= owed.places:
            if self._mistaken:
                self.emit(Restored(now))
                self._mistaken = False
                self._reported = None
            self._owing(now, difference)
            return
        if not stable or early is not None or profile.lifted_from(frame, owed.since) is not None:
            if not self._mistaken:
                self._owing(now, difference)
            return  # pieces in hands
        if difference != self._reported:
            self._reported = difference
            self._mistaken = True
            remove, put_back = difference.labels()
            if self.board_seats:
                detail = f"first make the board's move as shown: {self._board_played()}"
            else:
                detail = f"first {self._owed_detail().replace(': make it here', '', 1)}, as shown"
            self.emit(Illegal(now, self.position.to_move, remove, put_back, detail))
            lit = self.status.obligation
            self.status = self._status(Phase.OBLIGATION, now, obligation=lit, difference=difference)

    def _moved_on(self, frame: int) -> bool:
        """Whether the still `frame`, with turns owed again after a restart, shows them made
        and the next player's turn (or its first part) made after them, and no position on
        the owed turns' way: the power went with a piece of the next player's in the hand, so
        the board, back, never saw the owed turns made alone, and the piece came down as that
        player's move. Only where the board saw what that move puts down arrive: a Lance tile
        not yet cleared off, on a cell the next player may place on, is the clearing under way.
        Never while the board is on (a piece put past where the lights ask is a mistake)."""
        owed, position, profile = self._owed, self.position, self.profile
        assert owed is not None
        if position.obligations or position.outcome() is not None:
            return False
        if not self.is_local_seat(position.to_move):
            return False
        placed = frame & ~profile.render(position)
        arrived = 0
        for seen in self._trail[1:]:
            arrived |= placed & ~seen
        if not placed or arrived != placed:
            return False
        for turn in owed.turns:
            state = turn.start
            for action in turn.actions:
                if frame == profile.render(state):
                    return False
                state = state.apply(action)
        cells = self.matcher.game_cells(profile.sensors.spots(frame ^ profile.render(position)))
        try:
            found = self.matcher.search(position, frame, cells)
        except SearchLimitError:
            return False
        return bool(found.exact)

    def _made(self, now: float, frame: int) -> None:
        owed = self._owed
        assert owed is not None
        self._owed = None
        actions = [a for turn in owed.turns if turn.actions != (PASS,) for a in turn.actions]
        player = owed.turns[-1].player
        if self.board_seats:
            played = " ".join(notation(actions))
            self.emit(Note(now, f"made: the board's move {self.game.seats[player]} {played}"))
        else:
            self.emit(RemoteMade(now, player, notation(actions), len(self.history)))
        self._anchor(self._turn_began(), frame)
        self._set_play(now)
        self._announce_end(now)
