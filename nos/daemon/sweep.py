"""A restarted producer's sweep: APPL_DB rows it wrote before the restart and would not write now.

A config manager killed in the middle of a change (a config reload deleting VLANs, say) comes back,
reads CONFIG_DB whole and writes what it asks for; rows whose source went away meanwhile would stay in
APPL_DB, and the ASIC would keep what nobody configures. So a daemon that produces APPL_DB tables
tracks the keys its producers set from the start (``DBConnector.tracking``), and once its replay has
settled deletes the rows of those tables (applied, or pending in the producer's key set) that it did
not set again and that are its own by the table's rule (ROUTE_TABLE is also written by routing
protocols: only the routes of a protocol the daemon owns are its). Level-triggered, as STYLE.md 10 asks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from nos.db.connector import DBConnector
from nos.db.producer_state import ProducerStateTable, state_hash_prefix

log = logging.getLogger(__name__)

Owns = Callable[[str, dict[str, str]], bool]  # (key, row) -> whether the daemon wrote such a row


def everything(key: str, row: dict[str, str]) -> bool:
    return True


def start_tracking(db: DBConnector) -> None:
    """From now on, producers made on ``db`` record the keys they set."""
    db.tracking = True


def sweep(db: DBConnector, rules: Mapping[str, Owns]) -> dict[str, int]:
    """Delete the stale rows (see the module docstring); returns rows deleted per table. Tracking ends."""
    written: dict[str, set[str]] = {}
    producer_of: dict[str, ProducerStateTable] = {}
    for producer in db.producers:
        written.setdefault(producer.name, set()).update(producer.written or ())
        producer_of.setdefault(producer.name, producer)
        producer.written = None
    db.producers.clear()
    db.tracking = False
    deleted: dict[str, int] = {}
    for table, keys in written.items():
        stale = [(key, row) for key, row in _rows(db, table).items() if key not in keys]
        owns = rules.get(table, everything)
        mine = [key for key, row in stale if owns(key, row)]
        if mine:
            producer_of[table].delete_many(mine)
            deleted[table] = len(mine)
            log.info("daemon.sweep table=%s deleted=%d e.g. %s", table, len(mine), mine[0])
    return deleted


def _rows(db: DBConnector, table: str) -> dict[str, dict[str, str]]:
    """Every row of ``table``: applied ones, and pending ones (their state hash) not applied yet."""
    names: dict[str, str] = {}
    for prefix in (f"{table}{db.separator}", state_hash_prefix(table, db.separator)):
        for name in db.client.scan_iter(f"{prefix}*", count=1000):
            names.setdefault(name[len(prefix):], name)
    pipe = db.client.pipeline(transaction=False)
    for name in names.values():
        pipe.hgetall(name)
    return {key: row for key, row in zip(names, pipe.execute(), strict=True) if isinstance(row, dict)}
