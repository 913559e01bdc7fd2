"""Errors of lab topologies and plans."""

from __future__ import annotations

from collections.abc import Sequence


class TopologyError(ValueError):
    """Raised when a topology file is not valid; ``problems`` holds every problem found, each naming
    where in the file (``links[3].endpoints[1]: leaf9: no such node``)."""

    def __init__(self, problems: Sequence[str], source: str = "") -> None:
        self.problems = list(problems)
        self.source = source
        head = f"{source}: " if source else ""
        body = "\n  ".join(self.problems)
        super().__init__(f"{head}{len(self.problems)} problem(s):\n  {body}")


class LabTooBig(TopologyError):
    """Raised by ``check_fits`` when the lab's switches would not fit this machine's available memory."""
