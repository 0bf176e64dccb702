"""The board playing a seat in the loop: its turn is accepted the moment it is due, lit as an
obligation, and made by simulated hands that read only the lights; the game goes on, to its end
and into the next one. The board may move first; a power cut with its move half made shows the
rest again; a takeback undoes the person's move with the board's reply; a game change keeps the
seat where the new game has it."""

from __future__ import annotations

from magboard.firmware.engine.opponent import AiSeat, Level
from magboard.firmware.events import (
    Event,
    GameOver,
    GameStarted,
    Illegal,
    Mismatch,
    Moved,
    Note,
    Obligation,
    RemoteMade,
    Restored,
    TakenBack,
)
from magboard.firmware.games import get_game
from magboard.firmware.referee import Phase
from magboard.hardware.spec import Place, place_label
from magboard.sim.following import follow_lights
from magboard.sim.session import SimSession

O_BOARD = AiSeat(1, Level.NORMAL)
X_BOARD = AiSeat(0, Level.STRONG)


def of(events: list[Event], kind: type[Event]) -> list:
    return [e for e in events if isinstance(e, kind)]


def session_with(ai: AiSeat, tmp_path, **extra) -> SimSession:
    session = SimSession("mini", "tic-tac-toe", ai=ai, journal=tmp_path / "j.db", **extra)
    session.lay_out()
    session.start()
    session.settle()
    return session


def place(session: SimSession, label: str) -> Place:
    spec = session.spec
    return {place_label(p): p for p in (*spec.cells, *spec.slots)}[label]


def owed_obligation(session: SimSession) -> Obligation:
    assert session.referee.owed is not None, "the board owes no move"
    return of(session.events, Obligation)[-1]


def make_owed(session: SimSession) -> None:
    """A person makes the board's move by following its lights: the obligation's places, and
    the trays (a piece put back in one meanwhile is lit there to take again)."""
    slots = [place_label(slot) for slot in session.spec.slots]
    follow_lights(session, [*owed_obligation(session).places, *slots])
    session.settle()
    assert session.referee.owed is None
    assert session.referee.status.phase in (Phase.PLAY, Phase.OVER)


def back_to_trays(session: SimSession) -> None:
    """A person puts every piece on the lattice back in its seat's tray (slots 1-5)."""
    world = session.world
    for cell in [c for c in session.spec.cells if world.pieces_at(c)]:
        piece = world.lift(cell)
        session.run_for(0.2)
        tray = "A" if piece.kind.name == "X" else "B"
        slot = next(
            s
            for s in session.spec.slots
            if s.tray == tray and s.number <= 5 and not world.pieces_at(s)
        )
        world.put(slot, piece)
        session.run_for(0.2)
    session.settle()


def person_plays(session: SimSession) -> None:
    """The person makes the first legal move of their seat by hand."""
    session.perform(session.state.legal_actions()[0])
    session.settle()


def test_the_boards_turn_is_lit_made_by_hand_and_the_game_goes_on_to_its_end(tmp_path):
    session = session_with(O_BOARD, tmp_path)
    assert not of(session.events, Moved), "O does not open"
    while session.state.outcome() is None or session.referee.owed is not None:
        if session.referee.owed is not None:  # the board's last move too, when it ends the game
            make_owed(session)
        else:
            assert session.state.to_move == 0
            person_plays(session)
    session.run_for(1.0)
    moves = of(session.events, Moved)
    assert [m.player for m in moves] == [n % 2 for n in range(len(moves))]
    for move in (m for m in moves if m.player == 1):
        [asked] = [o for o in of(session.events, Obligation) if o.t == move.t]
        assert asked.detail == f"the board plays O: {move.actions[0]}: make it"
        assert f"made: the board's move O {move.actions[0]}" in [
            n.text for n in of(session.events, Note)
        ]
    assert len(of(session.events, GameOver)) == 1
    assert not of(session.events, Illegal) and not of(session.events, RemoteMade)
    # The board is cleared: the next game starts, and goes on against the board.
    back_to_trays(session)
    assert len(of(session.events, GameStarted)) == 2
    person_plays(session)
    assert session.referee.owed is not None


def test_the_board_moves_first_when_it_plays_the_first_seat(tmp_path):
    session = session_with(X_BOARD, tmp_path)
    [first] = of(session.events, Moved)
    assert first.player == 0 and first.t == 0.0
    make_owed(session)
    assert session.state.to_move == 1
    person_plays(session)
    assert [m.player for m in of(session.events, Moved)] == [0, 1, 0]


def test_a_power_cut_with_the_boards_move_half_made_shows_the_rest_again(tmp_path):
    session = session_with(O_BOARD, tmp_path)
    person_plays(session)
    asked = owed_obligation(session)
    reply = of(session.events, Moved)[-1].actions
    tray = next(label for label in asked.places if label[0].isupper())
    session.world.lift(place(session, tray))
    session.run_for(0.3)  # the piece is in the hand when the power goes
    session = session.restart()
    session.settle()
    assert of(session.events, GameStarted)[-1].actions[-1] == reply[0]
    again = owed_obligation(session)
    assert again.detail == asked.detail
    cell = next(label for label in again.places if label[0].islower())
    session.world.put(place(session, cell))
    session.settle()
    assert session.referee.owed is None and session.state.to_move == 0
    assert not of(session.events, Moved)  # accepted before the cut: not played twice


def test_a_takeback_undoes_the_persons_move_with_the_boards_reply(tmp_path):
    session = session_with(O_BOARD, tmp_path)
    start = session.profile.render(session.state)
    person_plays(session)
    mine = of(session.events, Moved)[-2]  # the board replied at once
    make_owed(session)
    back_to_trays(session)  # the person's piece and the board's
    taken = of(session.events, TakenBack)
    assert [t.player for t in taken] == [1, 0] and taken[-1].actions == mine.actions
    assert session.profile.render(session.state) == start and session.state.to_move == 0
    assert session.referee.owed is None


def test_making_the_boards_move_on_the_wrong_square_is_shown_and_put_right(tmp_path):
    session = session_with(O_BOARD, tmp_path)
    person_plays(session)
    asked = owed_obligation(session)
    world = session.world
    slot = place(session, next(label for label in asked.places if label[0].isupper()))
    wrong = next(
        c
        for c in session.spec.cells
        if not world.pieces_at(c) and place_label(c) not in asked.places
    )
    world.put(wrong, world.lift(slot))
    session.settle()
    [mistake] = of(session.events, Illegal)
    assert mistake.detail.startswith("first make the board's move as shown: the board plays O")
    session.world.put(slot, session.world.lift(wrong))
    session.settle()
    assert of(session.events, Restored)
    make_owed(session)


def test_a_game_change_keeps_the_seat_where_the_new_game_has_it(tmp_path):
    from magboard.firmware.app import wiring

    session = session_with(O_BOARD, tmp_path)
    now = session.clock.now()
    wiring.change_game(session.loop, get_game("tic-tac-cap"), {}, now)
    assert session.loop.player is not None and session.referee.board_seats == {1}
    assert session.referee.seats == {0}


def test_a_new_game_waits_for_the_board_to_be_cleared_then_the_board_opens_again(tmp_path):
    session = session_with(X_BOARD, tmp_path)
    make_owed(session)
    person_plays(session)
    make_owed(session)
    session.world.press("new", 0.1)
    session.run_for(0.5)
    assert session.referee.owed is None, "nothing is played on a board still to be cleared"
    back_to_trays(session)
    moves = of(session.events, Moved)
    assert moves[-1].player == 0 and moves[-1].t > moves[-2].t  # the new game's first move
    make_owed(session)
    assert session.state.to_move == 1


def test_the_menu_chooses_the_opponent_and_its_level_with_the_buttons_alone(tmp_path):
    session = SimSession("r1", "tic-tac-toe", journal=tmp_path / "j.db")
    session.lay_out()
    session.start()
    presses = ["menu", "menu"]  # open at tic-tac-toe; take it: its options page at `start`
    presses += ["seat-1"] * 3 + ["menu"]  # nobody, X, O: the board plays O
    presses += ["seat-1"] * 3 + ["menu"]  # easy, normal, strong
    presses += ["seat-2"] * 6 + ["menu"]  # back to `start`, and start
    for button in presses:
        session.world.press(button, 0.1)
        session.run_for(0.3)
    session.settle()
    notes = [n.text for n in of(session.events, Note)]
    assert "menu: opponent O" in notes and "menu: opponent level strong" in notes
    assert notes[-1] == "menu: closed"
    player = session.loop.player
    assert player is not None and player.seat == AiSeat(1, Level.STRONG)
    assert session.loop.referee.board_seats == {1}
    assert len(of(session.events, GameStarted)) == 2


def test_a_turn_the_rules_refuse_leaves_the_seat_to_people_and_the_board_plays_on(tmp_path):
    session = session_with(O_BOARD, tmp_path)

    def broken(state):  # a search that goes wrong: a square already taken
        return (state.legal_actions()[0].__class__((0, 0)),)

    session.loop.player.opponent.choose = broken
    person_plays(session)  # X on a1; the board's O on a1 is refused by the rules
    [note] = [n for n in of(session.events, Note) if n.text.startswith("the board stops")]
    assert "people play it" in note.text
    assert session.loop.player is None and session.referee.owed is None
    person_plays(session)  # O, by hand now
    assert session.state.turn == 2


def test_a_power_cut_after_the_boards_move_with_the_next_piece_in_hand_owes_nothing(tmp_path):
    """Tic Tac Doh!'s pieces come from one stash: the person's next piece, lifted from it when
    the power goes, is not the board's move still to make (that one stands on its cell)."""
    session = SimSession("r1", "tic-tac-doh", ai=AiSeat(1, Level.NORMAL), journal=tmp_path / "j.db")
    session.lay_out()
    session.start()
    session.settle()
    person_plays(session)
    make_owed(session)
    size = of(session.events, Moved)[-1].actions[0][0]  # the board's piece: S, M or L
    mine = next(a for a in session.state.legal_actions() if str(a)[0] == size)
    (step,) = session.profile.plan(session.state, mine)
    piece = session.take(step.source)  # the same size, from the stash both players draw on
    session.run_for(0.3)
    session = session.restart()
    session.settle()
    assert session.referee.owed is None and not of(session.events, Obligation)
    session.give(step.target, piece)
    session.settle()
    moved = of(session.events, Moved)
    assert [m.player for m in moved] == [0, 1] and moved[0].actions == (str(mine),)
    assert not of(session.events, Illegal)


def test_the_boards_move_is_lit_again_once_the_board_reads_after_a_restart(tmp_path):
    """The power comes back with the board's piece in the hand and a stray piece down (a hand,
    or sensor noise): once the board is put right and still, its move is owed again."""
    session = session_with(O_BOARD, tmp_path)
    person_plays(session)
    asked = owed_obligation(session)
    world = session.world
    tray = place(session, next(label for label in asked.places if label[0].isupper()))
    held = world.lift(tray)
    x_slot = next(s for s in session.spec.slots if s.tray == "A" and world.pieces_at(s))
    free = [c for c in session.spec.cells if not world.pieces_at(c)]
    stray = next(c for c in free if place_label(c) not in asked.places)
    world.put(stray, world.lift(x_slot))
    session.run_for(0.3)
    session = session.restart()
    session.settle()
    assert of(session.events, Mismatch) and session.referee.owed is None
    world.put(x_slot, world.lift(stray))
    session.settle()
    again = owed_obligation(session)
    assert again.detail == asked.detail
    cell = next(label for label in again.places if label[0].islower())
    world.put(place(session, cell), held)
    session.settle()
    assert session.referee.owed is None and session.state.to_move == 0
    assert f"made: the board's move O {cell}" in [n.text for n in of(session.events, Note)]
