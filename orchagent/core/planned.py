"""A batch of tasks planned one by one and sent to the ASIC together: ``Planned`` and ``run_planned``.

An orch that sets many independent attributes (a buffer profile on each of 384 queues, a scheduler on
each of 896) used to wait for syncd's answer after every task: one round trip through Redis and two
processes per task, ~2,300 of them for a 128-port RoCE switch's boot, which is what a 6-switch lab
waited on (issue 17). With ``run_planned`` each task of a batch is planned in order (``Planned``: its
SAI operations and what to record once they succeeded); the plans are sent with one
``SaiRedis.apply_many`` and one wait. A task the orch does not plan (``plan`` returns None: a delete,
anything whose plan needs an earlier task's result) first sends what is planned so far, then is handled
as before, so the ASIC sees every operation in the order one-by-one handling would have sent it.
A refused plan fails its own task only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from orchagent.sairedis import SaiRedis


@dataclass(frozen=True)
class Planned:
    """A task's SAI operations, and what to do once they all succeeded (it returns the task's result)."""

    ops: list[SaiOp]
    done: Callable[[], Result]


Plan = Callable[[KeyOpFieldsValues], "Result | Planned | None"]


def run_planned(sai: SaiRedis, tasks: Sequence[KeyOpFieldsValues], plan: Plan,
                handle: Callable[[KeyOpFieldsValues], Result]) -> list[Result]:
    """One result per task, in order (see the module docstring)."""
    results: list[Result | None] = [None] * len(tasks)
    waiting: list[tuple[int, Planned]] = []

    def send() -> None:
        for (index, planned), outcome in zip(waiting, sai.apply_many([p.ops for _, p in waiting]), strict=True):
            results[index] = planned.done() if outcome.ok else Result.failed(f"{outcome.status} {outcome.reason}")
        waiting.clear()

    for index, task in enumerate(tasks):
        outcome = plan(task)
        if isinstance(outcome, Planned):
            waiting.append((index, outcome))
        elif outcome is not None:
            results[index] = outcome
        else:
            send()
            results[index] = handle(task)
    send()
    return [r if r is not None else Result.failed("not handled") for r in results]


__all__ = ["Plan", "Planned", "run_planned"]
