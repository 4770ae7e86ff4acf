"""When a judged answer leaves: a fixed time after its call began, whatever the judgement took.

A Sawa claim's check and a Qayd call's judgement search the hidden hands, and how long a
search takes depends on them; a judged call may also wait in the judge lane behind other
tables' claims. So every judged answer, accepted or refused, leaves
:data:`JUDGED_ANSWER_SECONDS` after its call began (:meth:`JudgeClock.hold`): its own search,
the ledger's settling and the claims ahead of it in the lane all end before then, and none
of them moves it.

That holds while the judgement ends in time, which the clock makes so: the judge lane's
process takes one job at a time, and no more judged calls are let in at once
(:meth:`JudgeClock.check_room`, ``LANE_FULL`` otherwise) than the lane's processes finish
inside the time when each takes the longest it is allowed: a Sawa claim or a false-Sawa call
(:data:`JUDGE_WORST_SECONDS`, from ``bench/bench_judge_timing.py --worst`` with room to
spare), a Qayd call on a card (:data:`QAYD_CARD_SECONDS`). Who is let in depends only on the
kinds of the judged calls that arrived in the last :data:`JUDGED_ANSWER_SECONDS` (each stays
counted until its answer left), never on how long any of them searched. A
judgement that still ends late (a machine loaded far past the margin) leaves on the next
whole multiple of the time, is logged, and so tells at most that some search was long.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Final

from baloot_engine.lanes import Client, LaneRefusedError
from baloot_engine.lanes.errors import LANE_FULL, QUOTA_EXCEEDED
from baloot_engine.rules.actions import CallQayd
from baloot_engine.telemetry.logs import get_logger

JUDGED_ANSWER_SECONDS: Final = 1.0
"""Seconds from a judged call's start to its answer (accepted or refused)."""
JUDGE_WORST_SECONDS: Final = 0.4
"""The time one judgement is allowed for when the lane's room is counted: about three times the
99.9th percentile of a Sawa claim's check on an idle core (``bench/bench_judge_timing.py
--worst``: one claim in a thousand takes over 130 ms of CPU), for a loaded machine. A lane
process thus answers 2 judged calls at once in time."""
QAYD_CARD_SECONDS: Final = 0.02
"""The same for a Qayd call on a card (a rule checked against one card: microseconds; a
false-Sawa call, which has no card, searches like a claim and counts as one)."""
JUDGE_MARGIN_SECONDS: Final = 0.2
"""Kept free of judgements inside the answer time: the hand-off to the lane's process and
back, the match ledger's round trip."""

_log = get_logger("baloot_engine.api")


def budget_of(
    processes: int,
    answer_seconds: float = JUDGED_ANSWER_SECONDS,
    margin_seconds: float = JUDGE_MARGIN_SECONDS,
) -> float:
    """The seconds of judgement a lane of ``processes`` finishes inside the answer time (a
    lane run inline counts as one process)."""
    return max(1, processes) * (answer_seconds - margin_seconds)


def cost_of(action: object) -> float:
    """The seconds a judged action is allowed for: a Sawa claim's or a false-Sawa call's
    search (:data:`JUDGE_WORST_SECONDS`), a Qayd call on a card (:data:`QAYD_CARD_SECONDS`).
    Which one it is, the request itself says."""
    if isinstance(action, CallQayd) and action.card >= 0:
        return QAYD_CARD_SECONDS
    return JUDGE_WORST_SECONDS


class JudgeClock:
    """The judged calls of one server process: how many are inside, when each answers."""

    def __init__(
        self,
        processes: int,
        queue: int,
        per_source: int = 0,
        answer_seconds: float = JUDGED_ANSWER_SECONDS,
    ) -> None:
        self.answer_seconds = answer_seconds
        self.budget = budget_of(processes, answer_seconds)
        self.queue = max(1, queue)  # the lane's queue (BALOOT_LANE_JUDGE_QUEUE) bounds it too
        self.per_source = per_source  # calls one anonymous source may have inside (0: any)
        self.inside = 0  # judged calls whose answer has not left
        self.work = 0.0  # the seconds they are allowed for, together
        self.late = 0  # answers that could not leave on time (logged; should stay 0)
        self._inside_by: dict[str, int] = {}  # the anonymous sources' calls inside

    def check_room(self, client: Client, cost: float = JUDGE_WORST_SECONDS) -> None:
        """Refuse a judged call of ``client`` allowed ``cost`` seconds that could miss its
        answer time (LANE_FULL): the calls inside, each taking the longest it is allowed,
        would fill the lane's processes past it (or as many are inside as the lane's queue);
        or one of an anonymous source that has :attr:`per_source` calls inside already
        (QUOTA_EXCEEDED: its flood takes no more of the lane's room). The refusal comes before
        the call's token is opened and depends only on the kinds, callers and arrival times of
        the calls inside, never on how long any of them searched."""
        bound = self.per_source
        if bound and not client.keyed and self._inside_by.get(client.owner, 0) >= bound:
            raise LaneRefusedError(
                QUOTA_EXCEEDED,
                f"{client} has {bound} calls in the judge lane, as many as a caller without an "
                "API key may have at once; send the next when one is answered",
                retry_after=self.answer_seconds,
                metadata={"lane": "judge", "quota": "calls_in_lane", "client": client.owner},
            )
        if self.inside and (self.inside >= self.queue or self.work + cost > self.budget + 1e-9):
            raise LaneRefusedError(
                LANE_FULL,
                f"the judge lane is answering {self.inside} calls, as many as it judges "
                f"within {self.answer_seconds:g} s",
                retry_after=self.answer_seconds,
                metadata={"lane": "judge"},
            )

    def enter(self, client: Client, cost: float = JUDGE_WORST_SECONDS) -> Callable[..., None]:
        """Count a judged call of ``client`` allowed ``cost`` seconds inside until the function
        returned is called (once: when its answer has left), after :meth:`check_room`."""
        self.check_room(client, cost)
        self.inside += 1
        self.work += cost
        owner = None if client.keyed else client.owner
        if owner is not None:
            self._inside_by[owner] = self._inside_by.get(owner, 0) + 1
        left = False

        def leave(*_: object) -> None:
            nonlocal left
            if not left:
                left = True
                self.inside -= 1
                self.work = max(0.0, self.work - cost)
                if owner is not None:
                    count = self._inside_by[owner] - 1
                    if count:
                        self._inside_by[owner] = count
                    else:
                        del self._inside_by[owner]

        return leave

    async def hold(self, began: float) -> None:
        """Wait until :attr:`answer_seconds` after ``began`` (a ``time.monotonic()`` instant),
        or, for an answer already late, until the next whole multiple of it.

        The event loop's timers count from the time it read when its current pass began, so
        a sleep computed after other work in the same pass ends early by that work's length
        (a held claim's sealing, another call's answer): the wait is checked against the
        clock when it ends and made up, so that the answer leaves on the instant itself,
        whatever was done before it."""
        spent = time.monotonic() - began
        periods = max(1, math.ceil(spent / self.answer_seconds))
        if periods > 1:
            self.late += 1
            _log.warning(
                "judged answer late: it leaves on a later multiple of the answer time",
                spent_seconds=round(spent, 3),
                answer_seconds=self.answer_seconds,
            )
        target = began + periods * self.answer_seconds
        left = target - time.monotonic()
        while left > 0:  # at most twice or so: the first timer's shortfall is made up
            await asyncio.sleep(left)
            left = target - time.monotonic()


__all__ = [
    "JUDGED_ANSWER_SECONDS",
    "JUDGE_MARGIN_SECONDS",
    "JUDGE_WORST_SECONDS",
    "QAYD_CARD_SECONDS",
    "JudgeClock",
    "budget_of",
    "cost_of",
]
