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
"""

from __future__ import annotations

from typing import Any

import redis

from nos.db.connector import DBConnector
from nos.db.errors import map_redis_errors
from nos.db.keyops import DEL_COMMAND, SET_COMMAND, KeyOpFieldsValues
from nos.db.lua import lua
from nos.db.producer_state import channel_name, del_set_name, key_set_name
from nos.db.subscription import Subscription

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
        with map_redis_errors(f"consumer {table_name}"):
            self._work = int(db.client.scard(self.key_set)) > 0

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
        out = self._parse(reply)
        self._work = len({k.key for k in out}) >= self.pop_batch_size
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
    def _parse(reply: Any) -> list[KeyOpFieldsValues]:
        """The script's flat reply: per entry the key, n, then n field and value strings (n = 0: a DEL)."""
        out = []
        reply = reply or []
        at, end = 0, len(reply)
        while at < end:
            key, count = reply[at], int(reply[at + 1])
            at += 2
            if count:
                flat = reply[at:at + count]
                out.append(KeyOpFieldsValues(key, SET_COMMAND, tuple(zip(flat[::2], flat[1::2], strict=True))))
                at += count
            else:
                out.append(KeyOpFieldsValues(key, DEL_COMMAND, ()))
        return out

    def close(self) -> None:
        self._sub.close()
        if self._prefetch is not None:
            self._prefetch.close()
