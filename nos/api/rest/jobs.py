"""Long operations as jobs (reference ecosystem.md section 6, "Progress for long operations").

``POST /api/v1/operations/<name>`` answers 202 with ``Location: /api/v1/jobs/<id>``; the job runs its
steps in order on one worker thread (operations run one at a time, in the order they were asked for,
like SONiC's serialised config writes) and records state (pending, running, succeeded, failed),
progress, the step running, messages and the result. Jobs live in this process's memory: they are
lost when the REST server restarts, and only the newest ``KEEP`` finished ones are kept.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from nos.api.rest.errors import OPERATION_FAILED, entry, known_failure

log = logging.getLogger(__name__)

KEEP = 100


class JobRun:
    """What a step sees: values earlier steps left, and a way to add a progress message."""

    def __init__(self, job: Job) -> None:
        self._job = job
        self.values: dict[str, Any] = {}

    def note(self, message: str) -> None:
        with self._job.lock:
            self._job.messages.append(message)


StepFn = Callable[[JobRun], Any]


@dataclass(frozen=True)
class Step:
    """One step; the last step's return value (a dict) is the job's result."""

    name: str
    run: StepFn


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class Job:
    id: str
    operation: str
    steps: Sequence[Step]
    state: str = "pending"
    step: int = 0
    messages: list[str] = field(default_factory=list)
    created_at: str = field(default_factory=now)
    started_at: str | None = None
    finished_at: str | None = None
    result: dict[str, Any] | None = None
    errors: list[dict[str, str]] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def finished(self) -> bool:
        return self.state in ("succeeded", "failed")

    def view(self) -> dict[str, Any]:
        """The job as ``models.JobOut``."""
        with self.lock:
            total = len(self.steps)
            done = total if self.state == "succeeded" else max(self.step - 1, 0)
            current = self.steps[self.step - 1].name if self.step else ""
            return {"id": self.id, "operation": self.operation, "state": self.state,
                    "progress_pct": int(100 * done / total) if total else 100, "step": self.step,
                    "step_name": current, "steps_total": total, "messages": list(self.messages),
                    "created_at": self.created_at, "started_at": self.started_at, "finished_at": self.finished_at,
                    "result": self.result, "errors": self.errors}


class JobStore:
    """Submitted jobs by id, run one at a time on a worker thread."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nos-rest-job")

    def submit(self, operation: str, steps: Sequence[Step]) -> Job:
        job = Job(uuid.uuid4().hex[:16], operation, steps)
        with self._lock:
            self._jobs[job.id] = job
            self._forget_old()
        self._worker.submit(self._run, job)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        with self._lock:
            return list(self._jobs.values())

    def _forget_old(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.finished]
        for job_id in finished[: max(len(finished) - self.keep, 0)]:
            del self._jobs[job_id]

    def _run(self, job: Job) -> None:
        run = JobRun(job)
        with job.lock:
            job.state, job.started_at = "running", now()
        log.info("rest.job.start id=%s operation=%s", job.id, job.operation)
        result: Any = None
        try:
            for number, step in enumerate(job.steps, start=1):
                with job.lock:
                    job.step = number
                    job.messages.append(f"step {number}/{len(job.steps)}: {step.name}")
                result = step.run(run)
        except Exception as exc:  # a job reports its failure; a bug is logged with its traceback
            found = known_failure(exc)
            if found is None:
                log.error("rest.job.bug id=%s operation=%s error=%r", job.id, job.operation, exc, exc_info=exc)
                errors = [entry("application", OPERATION_FAILED, f"internal error: {exc!r}")]
            else:
                errors = found[1]
            self._finish(job, "failed", None, errors)
            return
        self._finish(job, "succeeded", result if isinstance(result, dict) else {"value": result}, None)

    @staticmethod
    def _finish(job: Job, state: str, result: dict[str, Any] | None, errors: list[dict[str, str]] | None) -> None:
        with job.lock:
            job.state, job.result, job.errors, job.finished_at = state, result, errors, now()
            if errors:
                job.messages += [e["error-message"] for e in errors]
        log.info("rest.job.end id=%s operation=%s state=%s", job.id, job.operation, state)

    def close(self) -> None:
        self._worker.shutdown(wait=False, cancel_futures=True)


__all__ = ["Job", "JobRun", "JobStore", "Step"]
