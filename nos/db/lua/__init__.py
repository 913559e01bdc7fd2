"""Lua scripts run inside Redis so that each table operation is atomic, as in swss-common."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def lua(name: str) -> str:
    """The source of ``<name>.lua`` from this package."""
    return resources.files(__package__).joinpath(f"{name}.lua").read_text()
