"""The soak's report: the tally as a table, per kind of trouble, and the first failures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tally import FIGURES, Tally

if TYPE_CHECKING:
    pass


def _duration(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m {secs:02d}s"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{seconds:.1f}s"


def _token_rows(tally: Tally) -> list[tuple[str, str, str]]:
    """Choices, turns ended early by the seat button, pieces changed in place."""
    wrong = f"wrong ones sent {tally.wrong_choices} (refused {tally.wrong_choices_refused})"
    return [
        ("choices", f"{tally.choices}", f"by buttons {tally.choices_by_buttons}, {wrong}"),
        ("turns ended", f"{tally.turns_ended}", "by the seat button"),
        ("changed in place", f"{tally.tokens_turned}", "a token turned over on its square"),
    ]


def _board_rows(tally: Tally) -> list[tuple[str, str, str]]:
    """The board's own moves, when it plays a seat: chosen, and made by hand as it showed or
    announced them."""
    trouble = (
        f"wrong square first {tally.board_wrong_squares},"
        f" power cut with its piece in the hand {tally.board_power_cuts}"
    )
    made = f"made by hand {tally.board_moves_made}"
    return [("the board's moves", f"{tally.board_moves}", made), ("of which", "", trouble)]


def format_report(tally: Tally) -> str:
    wins = ", ".join(f"{name} {count}" for name, count in sorted(tally.wins.items()))
    results = f"{wins}, draws {tally.draws}" if wins else f"draws {tally.draws}"
    speed = tally.virtual_seconds / tally.wall_seconds if tally.wall_seconds else 0.0
    nudged = [("of which tiles nudged", f"{tally.tiles_nudged}", "")] if tally.tiles else []
    whole = "the board still only at the end"
    whole_turns = [("whole turns", f"{tally.whole_turns}", whole)] if tally.tiles else []
    first = f"next player first {tally.moved_first} (refused {tally.moved_first_refused})"
    done = f"late {tally.late_obligations}, {first}" if tally.tiles else "carried out by hand"
    obligations = [("obligations", f"{tally.obligations}", done)] if tally.obligations else []
    tokens = _token_rows(tally) if tally.choices or tally.turns_ended or tally.tokens_turned else []
    board_plays = _board_rows(tally) if tally.ai else []
    rows = [
        ("games", f"{tally.games}", f"finished {tally.finished} ({results})"),
        ("moves made", f"{tally.moves}", f"accepted {tally.accepted}"),
        ("missed moves", f"{tally.missed}", ""),
        ("false accepts", f"{tally.false_accepts}", ""),
        (
            "illegal made",
            f"{tally.illegal_made}",
            f"caught {tally.illegal_caught}, recovered {tally.recovered}",
        ),
        ("of which knocks", f"{tally.knocks}", ""),
        *nudged,
        ("bumps", f"{tally.bumps}", f"false alarms {tally.false_alarms}"),
        ("fast replies", f"{tally.fast_replies}", ""),
        (
            "win replies",
            f"{tally.win_replies}",
            f"flagged to take off {tally.win_replies_flagged}",
        ),
        ("takebacks", f"{tally.takebacks}", f"carried out {tally.taken_back}"),
        ("power cuts", f"{tally.power_cuts}", "a piece in the hand each"),
        ("quick presses", f"{tally.quick_presses}", ""),
        *whole_turns,
        *obligations,
        *tokens,
        *board_plays,
        (
            "boards cleared",
            f"{tally.boards_cleared}",
            f"new pressed with pieces left {tally.new_with_pieces}, next game right "
            f"{tally.clears_ok}",
        ),
        ("noise bursts", f"{tally.noise_bursts}", f"blips {tally.noise_blips}"),
        (
            "faults injected",
            f"{tally.faults_injected}",
            f"survived {tally.faults_survived} (fault events {tally.fault_events})",
        ),
        ("LED frames", f"{tally.led_frames}", ""),
        *(
            [("journal records", f"{tally.journal.records}", tally.journal.summary())]
            if tally.journal
            else []
        ),
        ("virtual time", _duration(tally.virtual_seconds), f"{tally.virtual_seconds:.1f} s"),
        ("wall time", f"{tally.wall_seconds:.1f}s", f"{speed:.0f}x real time"),
    ]
    label = max(len(r[0]) for r in rows)
    value = max(len(r[1]) for r in rows)
    options = " ".join(f"{name}={setting}" for name, setting in tally.options.items())
    game = f"{tally.game} ({options})" if options else tally.game
    against = f", the board playing {tally.ai}" if tally.ai else ""
    lines = [f"soak: {game} on {tally.board}, {tally.games} games, seed {tally.seed}{against}"]
    lines += [f"  {a:<{label}}  {b:>{value}}  {c}".rstrip() for a, b, c in rows]
    lines += _kind_table(tally)
    lines += _latency_line(tally)
    verdict = "PASS" if tally.ok else "FAIL: " + "; ".join(tally.failures)
    lines.append(f"  {'result':<{label}}  {verdict}")
    return "\n".join(lines)


KIND_HEADINGS = ("made", "false accepts", "missed", "false alarms", "wrong reasons")
KINDS = (
    "legal move",
    "whole turn",
    "fast reply",
    "fast reply inside a turn's settle window",
    "reply after a win",
    "takeback",
    "takeback mid-obligation",
    "takeback against the board",
    "the board's piece on a square not lit",
    "power cut with the board's piece in the hand",
    "out of order",
    "obligation at once",
    "obligation in part",
    "obligation late",
    "obligation in the wrong place",
    "moved before the obligation",
    "changed in place",
    "changed in place at once",
    "choice",
    "the board's choice",
    "wrong choice",
    "quick press",
    "mistake",
    "knock",
    "tile nudged",
    "box piece where the rules forbid",
    "bump",
    "noise",
    "I2C errors",
    "expander reset",
    "fault as a piece lands",
    "power cut mid-action",
    "power cut while a choice waits",
    "board cleared",
    "`new` with pieces left",
)
"""Every kind of trouble the hands make, in the report's order: one the hands never made in a
run shows nought, so a kind the game allows and the run missed is plain to see."""


def _kind_table(tally: Tally) -> list[str]:
    """Per kind of trouble the hands made: how often, and each way the board went wrong."""
    if not tally.kinds:
        return []
    kinds = [*KINDS, *sorted(set(tally.kinds) - set(KINDS))]
    width = max(len(kind) for kind in kinds)
    heads = "  ".join(f"{h:>{max(len(h), 5)}}" for h in KIND_HEADINGS)
    lines = ["", f"  {'kind of trouble':<{width}}  {heads}"]
    for kind in kinds:
        figures = tally.kinds.get(kind, dict.fromkeys(FIGURES, 0))
        cells = "  ".join(
            f"{figures[f]:>{max(len(h), 5)}}" for f, h in zip(FIGURES, KIND_HEADINGS, strict=True)
        )
        lines.append(f"  {kind:<{width}}  {cells}")
    return [*lines, ""]


def _latency_line(tally: Tally) -> list[str]:
    figures = tally.latency()
    return [
        f"  judge latency  p50 {figures['p50']:.3f} ms, p99 {figures['p99']:.3f} ms,"
        f" worst {figures['max']:.3f} ms over {figures['judged']} still boards"
    ]


def format_examples(tally: Tally) -> str:
    """The first failures, each with the game's seed, number and turn, to replay them."""
    lines = []
    for example in tally.examples:
        lines.append(
            f"  {example['figure']} while {example['kind']}: game {example['game']}"
            f" (seed {example['game_seed']}), turn {example['turn']},"
            f" at {example['virtual_time']} s: {example['event']}"
        )
    return "\n".join(["first failures:", *lines]) if lines else ""
