"""Errors of the simulated ASIC's daemon (data problems become reports, never a crash)."""

from __future__ import annotations


class SyncdError(Exception):
    """Base class of syncd_sim's errors."""


class BadCounterRequest(SyncdError, ValueError):
    """Raised when a counter-set request (``NOS_COUNTER_SET_REQUEST``) names an unknown object or
    stat, carries a value that is not an unsigned 64-bit integer, or uses an unknown op."""


class BadLinkRow(SyncdError, ValueError):
    """Raised when a STATE_DB ``NOS_LINK_TABLE`` row has no ``carrier`` field, or one that is neither
    ``up`` nor ``down`` (the row is reported and ignored; the port keeps the carrier it had)."""
