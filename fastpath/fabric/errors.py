"""Errors of the fabric package."""

from __future__ import annotations


class FabricError(ValueError):
    """Raised when a fabric description or a flow set does not fit together: every problem is listed,
    each naming the switch, port, link or host it is about."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("fabric: " + "; ".join(self.problems))
