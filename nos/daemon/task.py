"""What a handler says about one task: SONiC's ``task_process_status`` names, plus a reason.

* SUCCESS     done; the task leaves the pending queue.
* INVALID     bad data; logged once with table and key, dropped, and reported in STATE_DB.
* NEED_RETRY  a dependency is missing; the task stays pending and is re-driven later.
* FAILED      the (simulated) ASIC refused; logged as an error, dropped, reported.
* IGNORED     nothing to do for this task (not an error).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class TaskStatus(enum.Enum):
    SUCCESS = "task_success"
    INVALID = "task_invalid_entry"
    NEED_RETRY = "task_need_retry"
    FAILED = "task_failed"
    IGNORED = "task_ignore"


@dataclass(frozen=True, slots=True)
class Result:
    """A handler's verdict on one task."""

    status: TaskStatus
    reason: str = ""
    soon: bool = False  # NEED_RETRY only: re-drive at the next loop turn, not on the retry timer
    held: bool = False  # NEED_RETRY only: the handler holds the task (sent, answer not read) and will name
                        # its key in ``settled()`` once it has a verdict; until then it is not handed again

    @classmethod
    def success(cls) -> Result:
        return _SUCCESS

    @classmethod
    def retry(cls, reason: str, soon: bool = False) -> Result:
        """A dependency is missing; ``soon`` when it will be there within a loop turn (e.g. an
        answer already on its way), so waiting for the retry timer would only add latency."""
        return cls(TaskStatus.NEED_RETRY, reason, soon)

    @classmethod
    def held_by_handler(cls, reason: str) -> Result:
        """The handler has the task in hand (e.g. sent to the ASIC, answer not read yet): pending, not
        handed again until the handler's ``settled()`` names its key (see ``TableConsumer``)."""
        return cls(TaskStatus.NEED_RETRY, reason, soon=True, held=True)

    @classmethod
    def invalid(cls, reason: str) -> Result:
        return cls(TaskStatus.INVALID, reason)

    @classmethod
    def failed(cls, reason: str) -> Result:
        return cls(TaskStatus.FAILED, reason)

    @classmethod
    def ignored(cls, reason: str = "") -> Result:
        return cls(TaskStatus.IGNORED, reason)

    @property
    def done(self) -> bool:
        """True unless the task must stay pending."""
        return self.status is not TaskStatus.NEED_RETRY

    @property
    def rejected(self) -> bool:
        return self.status in (TaskStatus.INVALID, TaskStatus.FAILED)


_SUCCESS = Result(TaskStatus.SUCCESS)
