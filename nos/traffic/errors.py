"""Errors of traffic runs and packet traces, as the CLI and REST report them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioProblem:
    """One bad field: where (``workloads[0].size``), why, and the value given (None when missing)."""

    field: str
    message: str
    value: object = None

    def __str__(self) -> str:
        shown = "" if self.value is None else f" (got {self.value!r})"
        return f"{self.field}: {self.message}{shown}"


class TrafficError(Exception):
    """Base class: a traffic run or trace could not be done."""


class ScenarioError(TrafficError, ValueError):
    """Raised when a scenario is not valid: bad YAML, a bad field, or (resolved against a switch) a port
    or host selector that matches nothing. ``problems`` names every bad field."""

    def __init__(self, source: str, problems: Sequence[ScenarioProblem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        lines = "; ".join(str(p) for p in self.problems)
        super().__init__(f"{source}: {lines}" if source else lines)


class SwitchNotAnswering(TrafficError):
    """Raised when nothing on the switch listens for requests (syncd_sim is not running) or a request
    stayed queued past its deadline."""


class JobFailed(TrafficError):
    """Raised when syncd_sim took the request and reported it failed (``state`` failed, ``error``)."""


class JobTimeout(TrafficError):
    """Raised when a started job did not finish before the client's deadline."""


class ConfigNotApplied(SwitchNotAnswering):
    """Raised when what was written to CONFIG_DB has not reached the ASIC within the deadline, so a run
    would see the old tables; the message names the hop that lags (``nos.config.applied``)."""
