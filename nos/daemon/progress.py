"""How far a daemon has processed what was written to CONFIG_DB: the pipeline's "applied" barrier.

Every CONFIG_DB apply publishes its generation on ``NOS_CONFIG_APPLIED`` after its changes, and a
process's CONFIG_DB keyspace subscription receives that message after the apply's own events
(``KeyspaceHub.track_generation``). A daemon has processed generation G when every event delivered up to
G's message has been popped and handed to its handler, nothing is held by a handler, no component has
deferred work (``Runner.busy``: a debounced recompute), and what is pending (tasks waiting for something)
has not changed for ``STUCK_S``: a task usually waits for an answer from downstream (a port's netdev
from syncd_sim) that comes within that; one that waits longer waits for something nobody has configured
(it says so in ``nos show errors`` and the daemon's backlog) and does not hold the barrier. It records G in STATE_DB
``NOS_DAEMON_TABLE|<daemon>`` field ``config_gen`` and announces ``<daemon> G`` on ``NOS_PROGRESS``.

A daemon fed by another daemon's APPL_DB output (orchagent by cfgmgrd) also needs that output popped:
ConsumerStateTable keys come out in no order across tables, so when the upstream daemon announces G
(everything it wrote for G is in APPL_DB by then), this one pops every APPL_DB table until nothing more
comes and hands it all; only then is G processed here too. orchagent waits synchronously for syncd's
answers, so what orchagent has processed is in the ASIC. ``nos.config.applied`` waits on these records.
"""

from __future__ import annotations

import logging
import time

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.db import Table
from nos.db.connector import Databases
from nos.db.keyspace import KeyspaceHub
from nos.db.subscription import Subscription
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import (
    CONFIG_APPLIED_CHANNEL,
    CONFIG_DB_GENERATION_KEY,
    PROGRESS_CHANNEL,
    PROGRESS_FIELD,
    STATE_NOS_DAEMON_TABLE_NAME,
)

log = logging.getLogger(__name__)

MAX_SYNC_POPS = 64  # pop rounds of one sync in one loop turn (the rest waits for the next turn)
STUCK_S = 1.0  # pending tasks unchanged this long wait for something that is not coming soon


class Announcements:
    """``NOS_PROGRESS`` as a selectable: the highest generation ``upstream`` announced."""

    def __init__(self, dbs: Databases, upstream: str) -> None:
        self.upstream = upstream
        self._sub = Subscription(dbs[STATE_DB])
        self._sub.subscribe(channels=[PROGRESS_CHANNEL])
        row = Table(dbs[STATE_DB], STATE_NOS_DAEMON_TABLE_NAME).get(upstream) or {}
        self.generation = _number(row.get(PROGRESS_FIELD, ""))  # announced before this process subscribed
        self._new = self.generation > 0

    def fileno(self) -> int:
        return self._sub.fileno()

    def read_messages(self) -> None:
        for msg in self._sub.drain():
            name, _, value = msg.data.partition(" ")
            if name == self.upstream and _number(value) > self.generation:
                self.generation, self._new = _number(value), True

    def has_work(self) -> bool:
        return self._new

    def take(self) -> int:
        self._new = False
        return self.generation


class HubReader:
    """The CONFIG_DB keyspace hub as a selectable of its own, so that its generation messages are read
    even where no table of CONFIG_DB is (a daemon's tables share the hub's socket and drain it too)."""

    def __init__(self, hub: KeyspaceHub) -> None:
        self.hub = hub

    def fileno(self) -> int:
        return self.hub.fileno()

    def read_messages(self) -> None:
        self.hub.drain()

    def has_work(self) -> bool:
        return False


class Progress:
    """Records the CONFIG_DB generation ``name`` has processed (see the module docstring)."""

    def __init__(self, dbs: Databases, runner: Runner, name: str, upstream: str | None = None,
                 enabled: bool = True) -> None:
        self.dbs = dbs
        self.runner = runner
        self.name = name
        self.hub = dbs[CONFIG_DB].keyspace_hub()
        self.hub.track_generation(CONFIG_APPLIED_CHANNEL, CONFIG_DB_GENERATION_KEY)
        runner.add_selectable(HubReader(self.hub), lambda: None, "CONFIG_DB generations")
        self.enabled = enabled  # orchagent: once its view is the ASIC's (APPLY_VIEW)
        self.reported = -1
        self.upstream: Announcements | None = None
        self.synced = 0  # the upstream generation whose APPL_DB output has been popped and handled
        self._syncing = 0  # the upstream generation being synced (0: none)
        self._pending = 0  # pending tasks at the last turn, and since when that number has held
        self._pending_at = 0.0
        if upstream is not None:
            self.upstream = Announcements(dbs, upstream)
            runner.add_selectable(self.upstream, self._announced)
        runner.after_each_step(self.after_step)

    def _announced(self) -> None:
        assert self.upstream is not None
        self._syncing = max(self._syncing, self.upstream.take())

    def _idle(self) -> bool:
        consumers = self.runner.consumers
        if any(c.has_work() or c.held or c.soon for c in consumers) or any(busy() for busy in self.runner.busy):
            return False
        pending, now = sum(c.pending_count for c in consumers), time.monotonic()
        if pending != self._pending:
            self._pending, self._pending_at = pending, now
        return not pending or now - self._pending_at >= STUCK_S

    def after_step(self) -> None:
        if not self.enabled or not self._idle():
            return
        if self._syncing and not self._sync():
            return
        own = self.hub.generation
        value = own if self.upstream is None else min(own, self.synced)
        if value > self.reported:
            self.reported = value
            self._report(value)

    def _sync(self) -> bool:
        """Pop every APPL_DB table until nothing comes; True once the upstream generation is synced."""
        target = self._syncing
        consumers = [c for c in self.runner.consumers if c.db == APPL_DB]
        for _ in range(MAX_SYNC_POPS):
            if not sum(_pop(c) for c in consumers):
                break
        else:
            return False
        if not self._idle():
            return False  # what the pops brought is held or asked to come back: next turn
        self.synced = max(self.synced, target)
        if self._syncing == target:
            self._syncing = 0
        return True

    def _report(self, generation: int) -> None:
        state = self.dbs[STATE_DB]
        Table(state, STATE_NOS_DAEMON_TABLE_NAME).set(self.name, {PROGRESS_FIELD: str(generation)})
        state.client.publish(PROGRESS_CHANNEL, f"{self.name} {generation}")
        log.debug("daemon.progress name=%s config_gen=%d", self.name, generation)


def _pop(consumer: TableConsumer) -> int:
    """Pop ``consumer``'s source whatever its channel said, and handle it; how many tasks it brought."""
    consumer.drain()
    return consumer.last_popped


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 0
