"""Errors of the daemon layer."""

from __future__ import annotations


class DaemonFatal(RuntimeError):
    """Raised when a daemon cannot go on and must be restarted to reconcile (its peer stopped answering,
    or lost the state the daemon relies on). The consumers let it through their per-task catch-all; the
    runner ends the loop with ``EXIT_FATAL`` and the supervisor restarts the daemon, which then rebuilds
    its state from the databases."""
