"""The soak: many games played physically on simulated boards with trouble mixed in, counted.

Carved by job, each module importing only those before it:
- `hands`, `answers`, `hands_people`: the hands' pace, what the board must answer them, and a
  move as the people make it;
- `tally` (what the games made and what the board did with it) and `report` (it as a table);
- `mishaps` (faults, bumps, mistakes, knocks) and `clearing` (the board cleared after a game),
  which `careless`, the careless player every soak builds on, is made of;
- `people`, the player for every game, doing what its contract declares, made of
  `carelessness`, `obligations`, `takebacks`, `nudges`, `choices` and `setting_up`;
- `against_board` (a person making the board's moves from its lights) with
  `takeback_against_board`;
- `run` (the games one after another, the command);
- `remote` (two boards playing through a broker) with `broker` (a private Mosquitto)."""

from .report import format_examples, format_report
from .run import main, soak
from .tally import JournalCost, Tally

__all__ = ["JournalCost", "Tally", "format_examples", "format_report", "main", "soak"]
