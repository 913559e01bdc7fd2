"""Errors of the simulated ASIC's daemon (data problems become reports, never a crash)."""

from __future__ import annotations


class SyncdError(Exception):
    """Base class of syncd_sim's errors."""


class BadCounterRequest(SyncdError, ValueError):
    """Raised when a counter-set request (``NOS_COUNTER_SET_REQUEST``) names an unknown object or
    stat, carries a value that is not an unsigned 64-bit integer, or uses an unknown op."""
