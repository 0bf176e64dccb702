"""A year of a busy board through the real journal, in virtual time (sim/journal_year.py; the
full-size year is `magboard bench journal`): the cap holds, and no game cut by the power, with
or without a record worn bad, comes back without a move it had accepted."""

from __future__ import annotations

import pytest

from magboard.firmware.journal import Limits
from magboard.firmware.stats import read_usage
from magboard.sim.journal_year import live_year

CAP = 192 * 1024

# What the journal keeps does not depend on the line detector under the referee.
pytestmark = [pytest.mark.backend_free, pytest.mark.slow]


def test_a_year_holds_its_cap_and_loses_no_accepted_move(tmp_path):
    path = tmp_path / "magboard.db"
    year = live_year(
        path,
        days=365,
        games_per_day=3,
        names=["tic-tac-toe", "tic-tac-doh", "magnetmen", "meep-tac-toe"],
        limits=Limits(keep_days=365, max_bytes=CAP),
        cut_every=4,
        wear_every=2,
    )
    assert year.games == 365 * 3 and year.power_cuts > 200 and year.worn_records > 100
    assert year.lost_moves == 0
    # Trimmed as each game starts and ends: over the cap by at most a game's records.
    assert year.largest_bytes <= CAP * 1.1
    usage = read_usage(path)
    assert sum(g.started for g in usage.games) < year.games  # the oldest summaries went too
    assert sum(g.playing for g in usage.games) == 1
