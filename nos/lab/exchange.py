"""Every switch of a running lab at once: their compiled tables out, a fabric run's counters in.

``export_all`` asks every switch in parallel (``nos.traffic.exchange``: each first waits until the
configuration it accepted has reached its ASIC) and returns the tables of that moment by switch;
``import_all`` hands each switch its share of a run, in parallel. A switch that does not answer
fails the whole step with its name: a fabric run on a part of the fabric would be wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.traffic.errors import TrafficError
from nos.traffic.exchange import Exported, export_tables, import_counters

T = TypeVar("T")


class LabExchangeError(RuntimeError):
    """A switch of the lab could not give its tables or take its counters (the message names it)."""


def _each(nodes: Mapping[str, Mapping[str, Any]], names: Sequence[str],
          work: Callable[[str, Databases], T]) -> dict[str, T]:
    def one(name: str) -> T:
        url = (nodes.get(name, {}).get("endpoints") or {}).get("redis")
        if not url:
            raise LabExchangeError(f"{name}: not running (no endpoints in the lab's state)")
        dbs = Databases(url)
        try:
            return work(name, dbs)
        except (TrafficError, DbError, OSError) as exc:
            raise LabExchangeError(f"{name}: {exc}") from None
        finally:
            dbs.close()

    with ThreadPoolExecutor(max_workers=max(1, min(8, len(names)))) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


def export_all(nodes: Mapping[str, Mapping[str, Any]], *, timeout_s: float = 60.0, applied: bool = True,
               since: Mapping[str, Exported] | None = None) -> dict[str, Exported]:
    """Every switch's compiled tables (``nodes``: ``lab.json``'s, with each switch's endpoints), each once
    what it accepted is in its ASIC, or as they are (``applied=False``; ``since``: what an earlier call
    gave, kept where unchanged; ``export_tables``)."""
    last = since or {}
    return _each(nodes, sorted(nodes), lambda name, dbs: export_tables(dbs, timeout_s=timeout_s, applied=applied,
                                                                        since=last.get(name)))


def import_all(nodes: Mapping[str, Mapping[str, Any]], updates: Mapping[str, Sequence[tuple[str, str, int, str]]],
               watchdog: Mapping[str, Sequence[tuple[str, str]]] | None = None,
               learned: Mapping[str, Sequence[tuple[str, str, str]]] | None = None, *,
               timeout_s: float = 60.0) -> dict[str, int]:
    """Each switch's share of a run (counters, watchdog events, the MACs its hosts' frames taught it);
    how many counter updates each applied."""
    events, macs = watchdog or {}, learned or {}
    names = sorted(set(updates) | set(macs))
    return _each(nodes, names, lambda name, dbs: import_counters(dbs, updates.get(name, ()), events.get(name, ()),
                                                                  macs.get(name, ()), timeout_s=timeout_s))
