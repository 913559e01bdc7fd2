"""Memory of a process tree: RSS (each process's resident pages, shared ones counted in every process
that maps them) and PSS (shared pages divided among the processes that share them: what the tree
really holds). Since the daemons are forked from a fork server that imported their libraries
(``nos.runtime.forkserver``), most of each one's pages are shared: the RSS sum counts them six times,
the PSS sum once."""

from __future__ import annotations

import psutil


def tree_memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) in MB of ``pid`` and all its descendants (PSS needs /proc/<pid>/smaps_rollup: root or
    the same user)."""
    root = psutil.Process(pid)
    rss = pss = 0
    for proc in [root, *root.children(recursive=True)]:
        try:
            full = proc.memory_full_info()
        except psutil.Error:
            continue
        rss += full.rss
        pss += full.pss
    return rss / 1e6, pss / 1e6
