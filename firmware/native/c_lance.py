"""Lance Assembly's compact bout engine in C (lance.c) behind the same calls as py_lance.

A playout is one C call: the position and its repetition history go in once, the bout's result
comes out. Importing this module raises ImportError when the extension is missing or older than
this code.
"""

from __future__ import annotations

from .py_lance import M64, ONGOING, Position

try:
    from ._lance import ffi, lib
except ImportError as exc:
    raise ImportError(
        "the C Lance Assembly engine (magboard.firmware.native._lance) is not built;"
        " run `make setup` to build it"
    ) from exc

try:
    _legal = lib.ml_legal
    _playout = lib.ml_playout
    MAX_ACTIONS = lib.ML_MAX_ACTIONS
    ERR_MEMORY = lib.ML_ERR_MEMORY
    ERR_POSITION = lib.ML_ERR_POSITION
except AttributeError as exc:
    raise ImportError(
        f"the built C Lance Assembly engine is older than its Python wrapper ({exc});"
        " run `make setup` to rebuild it"
    ) from exc

_new = ffi.new
ACTIONS_PER_TURN = 4
"""At most: the neutral tile, a placement, a slide and ending the turn."""


def _c_position(position: Position) -> object:
    return _new(
        "ml_position *",
        {
            "tiles": (position.a, position.b, position.neutral),
            "to_move": position.to_move,
            "starter": position.starter,
            "supplies": (position.supply_a, position.supply_b),
            "in_hand": position.in_hand,
            "placed": position.placed,
            "slid": position.slid,
            "bout_turn": position.bout_turn,
            "max_turns": position.max_turns,
        },
    )


def _c_seen(position: Position) -> tuple[object, int]:
    """The repetition history as C keys, each once per time it was seen."""
    keys = [(key & M64, key >> 64) for key, times in position.seen for _ in range(times)]
    return (_new("ml_key[]", keys) if keys else ffi.NULL), len(keys)


def legal(position: Position) -> list[int]:
    """The legal action codes of `position`, in the rules' order (none once the bout is over)."""
    if position.result != ONGOING:
        return []
    codes = _new("int[]", MAX_ACTIONS)
    count = _legal(_c_position(position), codes)
    return list(codes[0:count])


def playout(position: Position, seed: int, trace: list[int] | None = None) -> tuple[int, int]:
    """Uniformly random legal actions to the end of the bout, as py_lance.playout: its result
    (the winning seat or STALEMATE) and the number of actions played; `trace`, if given,
    receives the codes played."""
    if position.result != ONGOING:
        return position.result, 0
    seen, seen_count = _c_seen(position)
    steps = _new("int *")
    if trace is None:
        buffer, room = ffi.NULL, 0
    else:
        room = ACTIONS_PER_TURN * (max(position.max_turns - position.bout_turn, 0) + 1)
        buffer = _new("int[]", room)
    result = _playout(_c_position(position), seen, seen_count, seed & M64, buffer, room, steps)
    if result == ERR_MEMORY:
        raise MemoryError("no memory for a Lance Assembly playout's repetition history")
    if result == ERR_POSITION:
        raise ValueError(f"no legal action in {position}")
    if trace is not None:
        trace.extend(buffer[0 : min(steps[0], room)])
    return result, steps[0]
