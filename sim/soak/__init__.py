"""The soak: many games played physically on simulated boards with trouble mixed in, counted.

Carved by job: `tally` (what the games made and what the board did with it), `careless` (the
careless player every soak builds on), `people` (the player for every game, doing what its
contract declares), `against_board` (a person making the board's moves from its lights),
`report` (the tally as a table), `run` (the games one after another, the command) and `remote`
(two boards playing through a private MQTT broker)."""

from .report import format_examples, format_report
from .run import main, soak
from .tally import JournalCost, Tally

__all__ = ["JournalCost", "Tally", "format_examples", "format_report", "main", "soak"]
