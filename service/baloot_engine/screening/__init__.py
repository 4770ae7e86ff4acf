"""The fair-play screen of a day's records: a batch job in two stages, on Ray or in-process.

Stage 1 (:mod:`.stage1`) analyses every record cheaply and counts, per seat and per
partnership, how much its cards and its bids and doubling calls gained on the real deal over
what the seat could know; a set of records (the same players in the same seats) is scored by
z-scores of those counts (:mod:`.stats`). Stage 2 (:mod:`.stage2`) runs the full fair-play
report and gathers the evidence on what stage 1 flags. :mod:`.driver` makes the work units and
writes the outputs (idempotent, resumable); :mod:`.executors` runs the units here or on Ray
(imported only there, the ``screen`` extra). ``baloot-screen`` is the command line
(docs/screening.md).
"""

from baloot_engine.screening.driver import RecordError, Screen, Unit, screen, stage1_unit, units_of
from baloot_engine.screening.executors import RayExecutor, SerialExecutor, executor_of
from baloot_engine.screening.stage1 import STAGE1_BUDGET, stage1_rows
from baloot_engine.screening.stats import SCREEN_THRESHOLD, THRESHOLDS, set_score

__all__ = [
    "SCREEN_THRESHOLD",
    "STAGE1_BUDGET",
    "THRESHOLDS",
    "RayExecutor",
    "RecordError",
    "Screen",
    "SerialExecutor",
    "Unit",
    "executor_of",
    "screen",
    "set_score",
    "stage1_rows",
    "stage1_unit",
    "units_of",
]
