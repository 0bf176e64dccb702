"""The soak's people taking a turn back, and what the board must not mistake for a move
meanwhile."""

from __future__ import annotations

from collections.abc import Sequence

from magboard.firmware.events import (
    TakenBack,
)
from magboard.firmware.games import CARRY_OUT, Action, State
from magboard.firmware.profiles import Step
from magboard.firmware.referee import SearchLimitError
from magboard.firmware.referee.carrying import carrying
from magboard.firmware.referee.explain import forbidden

from ..world import WorldError
from .hands import ACCEPT_WAIT
from .hands_people import BRISK


class Takebacks:
    """How the people (PeopleSoak) take a turn back, mid-obligation too."""

    def takeback(self) -> bool:
        """The last turn put back by hand, however many actions it had, also while its
        obligation waits: the board must undo exactly it."""
        if self.undoable is None or self.turn_actions or self.state.choices():
            return False
        start, actions = self.undoable
        moves = self._moves(start, actions)
        pending = bool(self.state.obligations)
        slid = any(isinstance(m, Step) and m.slide for m in moves)
        if (slid or pending) and not self._only_a_takeback(
            start, self._undone_frames(start, actions)
        ):
            return False
        with self._doing("takeback mid-obligation" if pending else "takeback"):
            self.tally.takebacks += 1
            try:
                self._undo_turns([(start, actions)], BRISK)  # in one go: never still half undone
            except (WorldError, ValueError):  # no hand could: nothing for the board to judge
                self.lost = True
                return False
            self._wait(ACCEPT_WAIT, until=TakenBack)
            events = self._new_events()
            taken = [(e.player, e.actions) for e in events if isinstance(e, TakenBack)]
            if taken == [(start.to_move, tuple(map(str, actions)))]:
                self.tally.taken_back += 1
            else:
                self._blame("missed", 1, f"taken back {taken}, not {list(map(str, actions))}")
                self.lost = True
            self._unexpected([e for e in events if not isinstance(e, TakenBack)])
        self.state = start
        self.turn_start = start
        self.turn_actions = ()
        self.undoable = self.last_turn = None
        return True

    def _only_a_takeback(self, before: State, passed: Sequence[int]) -> bool:
        """Whether the board, shown `before` again through the frames `passed`, can read it
        only as the takeback: it shows something else than now (a slide and the reply sliding
        it back leave nothing to take back), no legal turn from the turn's start makes it (a
        group slid back is the next player's slide too, and, where that slide wins a bout, a
        tile then lifted is the board's clearing begun), and, while an obligation waits, it is
        not the obligation done, in part or whole (a placed tile taken off is a tile cleared
        too)."""
        profile, referee = self.profile, self.session.referee
        frame = profile.render(before)
        if frame == profile.render(referee.position):
            return False
        if not self.state.obligations:
            return not self._calls_a_move(frame, passed)
        position = referee.position
        done = position.apply(CARRY_OUT)
        if frame == profile.render(done) or profile.lifted_from(frame, done) is not None:
            return False
        return carrying(profile, position, frame).frame != frame

    def _undone_frames(self, start: State, actions: Sequence[Action]) -> list[int]:
        """The frames the board shows as the hands undo the turn `actions` from `start`, the
        last action first (`_undo_turns`), before it shows `start` again."""
        states = [start]
        for action in actions[:-1]:
            states.append(states[-1].apply(action))
        return [self.profile.render(state) for state in reversed(states[1:])]

    def _calls_a_move(self, frame: int, passed: Sequence[int]) -> bool:
        """Whether some reading of turns from the turn's start, through the frames `passed`,
        gives the board `frame`, or the rules forbid what it shows (both are judged before a
        takeback)."""
        referee = self.session.referee
        if forbidden(self.profile, referee.position, frame) is not None:
            return True
        start = self.profile.render(referee.turn_start)
        cells = referee.matcher.game_cells(self.profile.sensors.spots(frame ^ start))
        trail = (start, *passed, frame)
        try:
            found = referee.matcher.search(
                referee.turn_start, frame, cells, across=referee.matcher.any_reply, passed=trail
            )
        except SearchLimitError:
            return True
        return bool(found.exact or found.endings)
