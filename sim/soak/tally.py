"""The soak's tally: what was made, what the board did with it, and what the journal cost."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


FIGURES = ("made", "false_accepts", "missed", "false_alarms", "wrong_reasons")
"""What the report counts per kind of trouble: how often the hands did it, then each way the
board went wrong meanwhile."""


@dataclass(frozen=True)
class JournalCost:
    """What the games cost the journal: its records, the bytes its process wrote while they
    were played (write calls, `wchar` in /proc/self/io; None where there is no such count), and
    the database's size after a checkpoint, with what ended in it."""

    records: int
    written: int | None
    database: int
    finished: int

    @classmethod
    def measure(cls, path: Path, written: int | None) -> JournalCost:
        with closing(sqlite3.connect(path)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            records = db.execute("SELECT count(*) FROM records").fetchone()[0]
            finished = db.execute(
                "SELECT count(*) FROM games WHERE result = 'finished'"
            ).fetchone()[0]
        return cls(records, written, path.stat().st_size, finished)

    def summary(self) -> str:
        per_record = (
            f"{self.written / self.records / 1024:.1f} KB written a record, "
            if self.written is not None and self.records
            else ""
        )
        per_game = f" ({self.database / self.finished / 1024:.0f} KB a finished game)" * bool(
            self.finished
        )
        return f"{per_record}{self.database / 1024:.0f} KB after a checkpoint{per_game}"


def bytes_written() -> int | None:
    """What this process has passed to write calls so far (Linux), or None."""
    try:
        io = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
        return int(io["wchar"])
    except (OSError, KeyError, ValueError):
        return None


@dataclass
class Tally:
    """The soak's figures; `ok` says whether the board did everything right."""

    game: str = ""
    board: str = ""
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    """The game's options as asked for (the others are the game's defaults)."""
    tiles: bool = False
    """Whether the game is played on tiles that shift and turn."""
    games: int = 0
    finished: int = 0
    """Games that ended with the result the rules give, reported by the board."""
    aborted: int = 0
    """Games stopped because the board and the game played by hand went apart."""
    wins: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    moves: int = 0
    """Legal actions performed by hand."""
    accepted: int = 0
    """Of those, accepted by the board exactly as performed, before the next action."""
    missed: int = 0
    """Legal actions performed that the board did not accept before the next action."""
    false_accepts: int = 0
    """Moves the board accepted that were not the one performed, or during a mistake, a knock,
    a bump, a fault, a takeback or the clearing of the board."""
    illegal_made: int = 0
    illegal_caught: int = 0
    recovered: int = 0
    """Mistakes and knocks after which the board said `restored` and was back in the game."""
    false_alarms: int = 0
    """`illegal` events where no mistake was made."""
    knocks: int = 0
    tiles_nudged: int = 0
    """Of the mistakes, tiles shifted or turned by a hand that did not mean to."""
    bumps: int = 0
    noise_bursts: int = 0
    noise_blips: int = 0
    faults_injected: int = 0
    faults_survived: int = 0
    """Injected faults the board reported, after which it accepted the next move correctly."""
    fault_events: int = 0
    fast_replies: int = 0
    """Two turns made without the board settling between them."""
    win_replies: int = 0
    """A piece put down by the loser right after a winning move."""
    win_replies_flagged: int = 0
    """Of those, the ones the board asked to have taken off (and nothing else)."""
    takebacks: int = 0
    taken_back: int = 0
    """Takebacks the board carried out exactly."""
    power_cuts: int = 0
    """Restarts with a piece in the hand; the move was then accepted (or counted missed)."""
    quick_presses: int = 0
    whole_turns: int = 0
    """Turns of a piece and tile actions made in one go, the board never still between them."""
    obligations: int = 0
    """Obligations (captured pieces to take off) carried out by hand."""
    late_obligations: int = 0
    """Of those, carried out only after the board had waited a while."""
    moved_first: int = 0
    """Pieces put down by the next player before the obligation was carried out."""
    moved_first_refused: int = 0
    """Of those, the ones the board refused (and accepted nothing) until they went back."""
    choices: int = 0
    """Choices the rules left to a player (Magnetmen's Actress, Singer), made by the buttons or
    the link, and accepted as the turn's next action."""
    choices_by_buttons: int = 0
    """Of those, made with the seat button (stepping) and `menu` (taking)."""
    wrong_choices: int = 0
    """Options the board is not waiting for, sent over the link while a choice waits."""
    wrong_choices_refused: int = 0
    """Of those, refused with a reason, the board accepting nothing."""
    turns_ended: int = 0
    """Turns that could go on, ended with the mover's seat button (after the hands settled)."""
    tokens_turned: int = 0
    """Pieces changed in place: lifted from a cell and another put on it in one quick movement
    (a Magnetmen token turned over on its square)."""
    boards_cleared: int = 0
    new_with_pieces: int = 0
    """Of the cleared boards, those where `new` was pressed with pieces left on them."""
    clears_ok: int = 0
    """Cleared boards after which the next game started, with nothing left over counted as a
    move, and its first move was accepted."""
    ai: str = ""
    """The seat the board plays (SEAT:LEVEL), if it plays one."""
    board_moves: int = 0
    """Moves the board chose and accepted for its seat (each one the rules allow)."""
    board_moves_made: int = 0
    """Of those, made by hand from the lights and seen made."""
    board_wrong_squares: int = 0
    """The board's piece put on a square it did not light first (counted as mistakes too)."""
    board_power_cuts: int = 0
    """Power cuts with the board's piece in the hand (counted as power cuts too)."""
    wrong_reasons: int = 0
    """`illegal` events whose detail does not name the rule the hands broke."""
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per kind of trouble (and plain legal moves): how often the hands did it, and what went
    wrong while they did (`FIGURES`)."""
    examples: list[dict[str, Any]] = field(default_factory=list)
    """The first few things that went wrong, with what replays them (`soak --seed` plays the
    same games; each game's seed and the turn it reached are here too)."""
    judge_ms: list[float] = field(default_factory=list, repr=False)
    """Wall-clock milliseconds of each judgement of a still board, for the latency figures."""
    led_frames: int = 0
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0
    journal: JournalCost | None = None
    calendar: float = field(default_factory=time.time)
    """When the soak began (epoch seconds): its games are journalled one after another from
    here, in virtual time."""

    @property
    def failures(self) -> list[str]:
        problems = []
        if self.false_accepts:
            problems.append(f"{self.false_accepts} false accepts")
        if self.missed:
            problems.append(f"{self.missed} missed moves")
        if self.faults_survived != self.faults_injected:
            problems.append(f"{self.faults_injected - self.faults_survived} faults not survived")
        if self.illegal_caught != self.illegal_made:
            problems.append(f"{self.illegal_made - self.illegal_caught} mistakes not caught")
        if self.recovered != self.illegal_made:
            problems.append(f"{self.illegal_made - self.recovered} mistakes not recovered")
        if self.false_alarms:
            problems.append(f"{self.false_alarms} false alarms")
        if self.wrong_reasons:
            problems.append(f"{self.wrong_reasons} refusals with the wrong reason")
        if self.taken_back != self.takebacks:
            problems.append(f"{self.takebacks - self.taken_back} takebacks not carried out")
        if self.win_replies_flagged != self.win_replies:
            unflagged = self.win_replies - self.win_replies_flagged
            problems.append(f"{unflagged} win replies not flagged")
        if self.moved_first_refused != self.moved_first:
            unrefused = self.moved_first - self.moved_first_refused
            problems.append(f"{unrefused} moves before an obligation not refused")
        if self.wrong_choices_refused != self.wrong_choices:
            unrefused = self.wrong_choices - self.wrong_choices_refused
            problems.append(f"{unrefused} wrong choices not refused")
        if self.clears_ok != self.boards_cleared:
            problems.append(f"{self.boards_cleared - self.clears_ok} boards cleared wrongly")
        if self.board_moves_made != self.board_moves:
            unmade = self.board_moves - self.board_moves_made
            problems.append(f"{unmade} of the board's moves not seen made")
        if self.aborted:
            problems.append(f"{self.aborted} games aborted")
        return problems

    @property
    def ok(self) -> bool:
        return not self.failures

    def latency(self) -> dict[str, float]:
        """Judge latency, milliseconds of wall-clock time per still board judged: median, p99
        and the worst."""
        times = sorted(self.judge_ms)
        if not times:
            return {"p50": 0.0, "p99": 0.0, "max": 0.0, "judged": 0}
        at = lambda share: times[min(len(times) - 1, int(share * len(times)))]  # noqa: E731
        return {
            "p50": round(at(0.5), 3),
            "p99": round(at(0.99), 3),
            "max": round(times[-1], 3),
            "judged": len(times),
        }

    def count(self, kind: str, figure: str, n: int = 1) -> None:
        """Adds `n` to a kind's figure (a kind seen for the first time starts at nought)."""
        figures = self.kinds.setdefault(kind, dict.fromkeys(FIGURES, 0))
        figures[figure] += n

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["virtual_seconds"] = round(self.virtual_seconds, 3)
        data["wall_seconds"] = round(self.wall_seconds, 3)
        del data["calendar"]
        del data["judge_ms"]
        data["judge_latency_ms"] = self.latency()
        data["ok"] = self.ok
        data["failures"] = self.failures
        return data
