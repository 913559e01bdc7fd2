"""ConsumerStateTable: the reader side of SONiC's APPL_DB transport (swss-common semantics).

``pops()`` runs one Lua script: SPOP up to the batch size from ``T_KEY_SET``; for each key apply a
pending delete, copy the pending fields into the row ``T<sep><key>`` and return them. No order
across keys; several SETs of a key merge; DEL then SET of a key is returned as DEL, SET.

With ``prefetch`` (a reader of a busy table, orchagent's ROUTE_TABLE): when a pop comes back full, the
next pop is sent at once on a connection of its own and its reply is read by the next ``pops()``, so
Redis runs the script (milliseconds for a full batch) while the reader handles the batch it has,
instead of the reader waiting for it. The effect on the database is that of an earlier pop; a popped
batch that is never read (the reader stops) is in the table itself, where a restarted reader finds
it, as after any pop.

Bad data in the transport never fails a pop (see the script): a key set, delete set or state hash of
the wrong type, a row of the wrong type (replaced by the popped fields), or a key-set member with
nothing pending, comes back as a bad entry; ``pops()`` reports those (``nos.db.baddata``; a row it
replaced is only logged) and returns the good ones. A report on a key is cleared by its next good pop.
"""

from __future__ import annotations

import logging
from typing import Any

import redis

from nos.db.baddata import BadKey, shown, wrong_type_reason
from nos.db.connector import DBConnector
from nos.db.errors import WrongTypeError, map_redis_errors
from nos.db.keyops import DEL_COMMAND, SET_COMMAND, KeyOpFieldsValues
from nos.db.lua import lua
from nos.db.producer_state import channel_name, del_set_name, key_set_name
from nos.db.subscription import Subscription

log = logging.getLogger(__name__)

DEFAULT_POP_BATCH_SIZE = 128  # TableConsumable::DEFAULT_POP_BATCH_SIZE
MAX_POP_BATCH_SIZE = 1024     # swss-common SHA_POP_COMMAN_MAX_POP_SIZE: larger batches stall Redis


class ConsumerStateTable:
    """Pops changes written by ProducerStateTables; a selectable for ``Select``."""

    def __init__(self, db: DBConnector, table_name: str, pop_batch_size: int = DEFAULT_POP_BATCH_SIZE,
                 prefetch: bool = False) -> None:
        self.db = db
        self.name = table_name
        if not 0 < pop_batch_size <= MAX_POP_BATCH_SIZE:
            raise ValueError(f"pop batch size must be 1..{MAX_POP_BATCH_SIZE}, not {pop_batch_size}")
        self.pop_batch_size = pop_batch_size
        self.key_set = key_set_name(table_name)
        self.del_set = del_set_name(table_name)
        self.channel = channel_name(table_name, db.id)
        self.table_prefix = f"{table_name}{db.separator}"
        self._pops = db.script("consumer_state_pops", lua("consumer_state_pops"))
        self._pop_keys = [self.key_set, self.table_prefix, self.del_set]
        self._pop_args = [str(pop_batch_size), "_"]
        self._prefetch: Any = None      # the prefetching connection, made on first use
        self._prefetched = False        # a pop has been sent on it and its reply not read
        self.prefetch = prefetch
        self._sub = Subscription(db)
        self._sub.subscribe(channels=[self.channel])
        # Subscribed first, then counted: keys pending from before we started are not missed.
        try:
            with map_redis_errors(f"consumer {table_name}"):
                self._work = int(db.client.scard(self.key_set)) > 0
        except WrongTypeError:
            self._work = True  # not a set: the first pop reports it

    # -- Selectable ----------------------------------------------------------------------------
    def fileno(self) -> int:
        return self._sub.fileno()

    def read_messages(self) -> None:
        if self._sub.drain():
            self._work = True

    def has_work(self) -> bool:
        return self._work

    # -- popping -------------------------------------------------------------------------------
    def pops(self) -> list[KeyOpFieldsValues]:
        """Up to ``pop_batch_size`` keys' changes. Work stays flagged while a batch comes back full."""
        with map_redis_errors(f"consumer {self.name} pops"):
            reply = self._read_prefetched() if self._prefetched else self._pop_now()
        out, bad = self._parse(reply)
        popped = {k.key for k in out}
        if self.db.bad_keys.reported:
            self._clear_reports(out, bad)
        if bad:  # after the clearing: a key both deleted and unreadable keeps its report
            self._report(bad)
            popped |= {key for key, _, _ in bad if key}
        self._work = len(popped) >= self.pop_batch_size
        if self._work and self.prefetch:
            with map_redis_errors(f"consumer {self.name} prefetch"):
                self._send_prefetch()
        return out

    def _send_prefetch(self) -> None:
        if self._prefetch is None:
            self.db.client.script_load(self._pops.script)
            self._prefetch = self.db.new_client(single_connection_client=True)
            self._prefetch.ping()
        self._prefetch.connection.send_command("EVALSHA", self._pops.sha, len(self._pop_keys), *self._pop_keys,
                                               *self._pop_args)
        self._prefetched = True

    def _pop_now(self) -> Any:
        return self._pops(keys=self._pop_keys, args=self._pop_args)

    def _read_prefetched(self) -> Any:
        self._prefetched = False
        try:
            return self._prefetch.connection.read_response()
        except redis.exceptions.NoScriptError:  # scripts flushed meanwhile: nothing was popped
            return self._pop_now()

    @staticmethod
    def _parse(reply: Any) -> tuple[list[KeyOpFieldsValues], list[tuple[str, str, str]]]:
        """The script's flat reply: per entry the key, n, then n field and value strings (n = 0: a DEL;
        n = -1: a bad key, then its Redis key and type; n = -2: nothing was pending). Returns the
        tasks, and the bad entries as (key, Redis key, type; Redis key "" for nothing pending)."""
        out = []
        bad = []
        reply = reply or []
        at, end = 0, len(reply)
        while at < end:
            key, count = reply[at], int(reply[at + 1])
            at += 2
            if count > 0:
                flat = reply[at:at + count]
                out.append(KeyOpFieldsValues(key, SET_COMMAND, tuple(zip(flat[::2], flat[1::2], strict=True))))
                at += count
            elif count == 0:
                out.append(KeyOpFieldsValues(key, DEL_COMMAND, ()))
            elif count == -1:
                bad.append((key, reply[at], reply[at + 1]))
                at += 2
            else:
                bad.append((key, "", ""))
        return out, bad

    def _clear_reports(self, out: list[KeyOpFieldsValues], bad: list[tuple[str, str, str]]) -> None:
        """Reports this pop shows wrong no longer: keys popped well, and the sets if they were sets."""
        good = self.db.bad_keys.good
        for key in {k.key for k in out}:
            good(self.db.name, self.name, key)
        names = {name for _, name, _ in bad}
        if self.key_set not in names:
            good(self.db.name, self.name, self.key_set)
            if self.del_set not in names:
                good(self.db.name, self.name, self.del_set)

    def _report(self, bad: list[tuple[str, str, str]]) -> None:
        """Report what the script found bad (a row it replaced is only logged: it is a row again)."""
        db = self.db.name
        for key, name, kind in bad:
            if not name:
                reason = (f"{db} {self.key_set} held {shown(key)} with nothing pending (no "
                          f"_{self.table_prefix}{shown(key)}, not in {self.del_set}): no operation")
            elif name.startswith(self.table_prefix):
                log.warning("db.bad_key.replaced db=%s key=%s reason=%s", db, shown(name),
                            wrong_type_reason(db, name, kind) + ": replaced by the popped fields")
                continue
            elif key:
                reason = wrong_type_reason(db, name, kind) + ": its pending change was unreadable and is dropped"
            else:
                reason = wrong_type_reason(db, name, kind, "set") + f": {self.name} changes cannot be popped"
            self.db.bad_keys.report(BadKey(db, self.name, key or name, reason))

    def close(self) -> None:
        self._sub.close()
        if self._prefetch is not None:
            self._prefetch.close()
