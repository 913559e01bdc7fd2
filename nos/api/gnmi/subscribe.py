"""Subscribe: ONCE, POLL and STREAM (ON_CHANGE from keyspace notifications, SAMPLE on a timer).

* ONCE: every path's current value, ``sync_response``, end of the RPC.
* POLL: the same at the start and again for every ``Poll`` the client sends (each round ends with
  ``sync_response``, as sonic-gnmi does).
* STREAM: an initial dump (unless ``updates_only``), ``sync_response``, then
  - ON_CHANGE: only what changes, one update per changed row/field with its key in the path
    (``/CONFIG_DB/localhost/PORT/Ethernet0``), a row or field that disappears as a ``delete`` path;
    writes that leave a row as it was are not sent;
  - SAMPLE: the whole value every ``sample_interval`` (minimum and default 1 s; less is refused with
    INVALID_ARGUMENT), only what changed with ``suppress_redundant``, everything again every
    ``heartbeat_interval``; ticks are scheduled from the start time, so sending never drifts;
  - TARGET_DEFINED: SAMPLE on COUNTERS_DB, ON_CHANGE elsewhere.

Paths that do not exist yet are accepted: they send nothing until they do. A STREAM ends when the
client cancels or goes away (its keyspace watch is released). Each STREAM runs in its RPC's thread:
the change feed only marks keys dirty, and a stream that is busy sending coalesces what changed
meanwhile into one re-read, so a slow client never holds up the others.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.changes import ChangeFeed, Watcher
from nos.api.gnmi.encoding import check_encoding
from nos.api.gnmi.errors import InvalidArgument, Unavailable
from nos.api.gnmi.paths import Elem, addresses, from_proto
from nos.api.gnmi.reader import Entry, Reader, aggregate
from nos.api.gnmi.responses import notification, now_ns, sync_response, update_response
from nos.api.gnmi.selection import Selection, resolve
from nos.api.gnmi.virtual import NameMaps
from nos.db.errors import DbError
from nos.schema.dbconfig import COUNTERS_DB

log = logging.getLogger(__name__)

MIN_INTERVAL_S = 1.0
NS = 1_000_000_000
TARGET_DEFINED, ON_CHANGE, SAMPLE = (gnmi_pb2.SubscriptionMode.Value(m) for m in ("TARGET_DEFINED", "ON_CHANGE",
                                                                                    "SAMPLE"))
STREAM, ONCE, POLL = (gnmi_pb2.SubscriptionList.Mode.Value(m) for m in ("STREAM", "ONCE", "POLL"))
Path = tuple[Elem, ...]


@dataclass(frozen=True)
class Sources:
    """What every subscription reads from: the databases, the name maps and the change feed."""

    reader: Reader
    maps: NameMaps
    feed: ChangeFeed


@dataclass
class Stream:
    """One Subscription of a SubscriptionList, with its schedule and what it last sent."""

    text: str
    origin: str
    full: Path
    selection: Selection
    on_change: bool = False
    interval: float = MIN_INTERVAL_S
    heartbeat: float = 0.0
    suppress: bool = False
    due: float = 0.0
    beat: float = 0.0
    last: dict[Path, object] = field(default_factory=dict)


def interval_s(nanoseconds: int, what: str, text: str) -> float:
    """A sample or heartbeat interval in seconds; 0 means the minimum for samples (none for heartbeats)."""
    if nanoseconds and nanoseconds < MIN_INTERVAL_S * NS:
        raise InvalidArgument(f"{text}: {what} {nanoseconds} ns is below this switch's minimum of 1 s "
                              f"({int(MIN_INTERVAL_S * NS)} ns); 0 asks for the minimum")
    return nanoseconds / NS


def plan_streams(request: Any, sources: Sources) -> list[Stream]:
    """The subscriptions of a SubscriptionList, checked (raises GnmiError before anything is sent)."""
    if not request.subscription:
        raise InvalidArgument("the SubscriptionList has no subscription")
    prefix = from_proto(request.prefix)
    paths = [from_proto(s.path) for s in request.subscription]
    found = addresses(prefix, paths, sources.reader.names)
    streams = []
    for sub, path, address in zip(request.subscription, paths, found, strict=True):
        selection = resolve(address, sources.reader.separator(address.db), sources.maps)
        mode = sub.mode
        if mode not in (TARGET_DEFINED, ON_CHANGE, SAMPLE):
            raise InvalidArgument(f"{address.text}: unknown subscription mode {mode}")
        if mode == TARGET_DEFINED:
            mode = SAMPLE if address.db == COUNTERS_DB else ON_CHANGE
        stream = Stream(address.text, path.origin, address.full, selection, on_change=mode == ON_CHANGE,
                        heartbeat=interval_s(sub.heartbeat_interval, "heartbeat_interval", address.text),
                        suppress=sub.suppress_redundant)
        if not stream.on_change:
            stream.interval = interval_s(sub.sample_interval, "sample_interval", address.text) or MIN_INTERVAL_S
        streams.append(stream)
    return streams


class Session:
    """One Subscribe RPC (see the module docstring)."""

    def __init__(self, sources: Sources, request: Any) -> None:
        self.sources = sources
        self.reader = sources.reader
        self.prefix = from_proto(request.prefix)
        self.encoding = check_encoding(request.encoding)
        self.updates_only = request.updates_only
        self.streams = plan_streams(request, sources)
        self.max_lag_s = 0.0
        self._cond = threading.Condition()
        self._dirty: dict[tuple[str, str, str], None] = {}
        self._stopped = False
        self._broken: str | None = None

    # -- the mailbox (called from other threads) ---------------------------------------------------
    def notify(self, db: str, table: str, key: str) -> None:
        with self._cond:
            self._dirty[(db, table, key)] = None
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def broken(self, message: str) -> None:
        with self._cond:
            self._broken = message
            self._cond.notify()

    # -- ONCE and POLL ------------------------------------------------------------------------------
    def once(self) -> Iterator[Any]:
        yield from self._snapshot()
        yield sync_response()

    def poll(self, requests: Iterable[Any]) -> Iterator[Any]:
        yield from self.once()
        for request in requests:
            if not request.HasField("poll"):
                raise InvalidArgument("a POLL subscription takes Poll messages only after its SubscriptionList")
            yield from self.once()

    def _snapshot(self) -> Iterator[Any]:
        for stream in self.streams:
            value = self._sample_value(stream)
            if value is not None:
                yield self._send(stream, [(stream.full, value)], [])

    # -- STREAM -------------------------------------------------------------------------------------
    def stream(self, context: Any) -> Iterator[Any]:
        if not context.add_callback(self.stop):
            return
        watchers = self._watch()
        try:
            yield from self._initial()
            yield sync_response()
            yield from self._loop()
        finally:
            for watcher in watchers:
                self.sources.feed.unwatch(watcher)
            if any(not s.on_change for s in self.streams):
                log.debug("gnmi.subscribe.end max_sample_lag_ms=%.1f", self.max_lag_s * 1000)

    def _watch(self) -> list[Watcher]:
        tables: dict[str, set[str] | None] = {}
        for stream in self.streams:
            if stream.on_change:
                db, wanted = stream.selection.db, stream.selection.tables
                known = tables.get(db, set())
                tables[db] = None if wanted is None or known is None else known | wanted
        watchers = [Watcher(db, None if t is None else frozenset(t), self.notify, self.broken)
                    for db, t in tables.items()]
        try:
            for watcher in watchers:
                self.sources.feed.watch(watcher)
        except DbError as error:
            for watcher in watchers:
                self.sources.feed.unwatch(watcher)
            raise Unavailable(f"cannot watch the switch's database: {error}") from error
        return watchers

    def _initial(self) -> Iterator[Any]:
        start = time.monotonic()
        for stream in self.streams:
            stream.beat = start + stream.heartbeat
            if stream.on_change:
                entries = stream.selection.entries(self.reader)
                values = self.reader.read(entries)
                stream.last = {e.path: v for e, v in values.items()}
                if values and not self.updates_only:
                    yield self._send(stream, [(e.path, v) for e, v in sorted(values.items(), key=_by_label)], [])
            else:
                stream.due = start + stream.interval
                if not self.updates_only:
                    yield from self._sample(stream, full=True)

    def _loop(self) -> Iterator[Any]:
        while True:
            with self._cond:
                if not (self._dirty or self._stopped or self._broken):
                    self._cond.wait(max(0.0, self._next_deadline() - time.monotonic()))
                if self._stopped:
                    return
                if self._broken:
                    raise Unavailable(self._broken)
                dirty, self._dirty = self._dirty, {}
            if dirty:
                yield from self._changes(dirty)
            yield from self._timers(time.monotonic())

    def _next_deadline(self) -> float:
        deadlines = [s.due for s in self.streams if not s.on_change]
        deadlines += [s.beat for s in self.streams if s.heartbeat]
        return min(deadlines, default=time.monotonic() + 3600.0)

    def _timers(self, now: float) -> Iterator[Any]:
        for stream in self.streams:
            beat = bool(stream.heartbeat) and now >= stream.beat
            if beat:
                stream.beat = _next_tick(stream.beat, stream.heartbeat, now)
            if stream.on_change:
                if beat:
                    yield from self._resend(stream)
                continue
            due = now >= stream.due
            if due:
                self.max_lag_s = max(self.max_lag_s, now - stream.due)
                stream.due = _next_tick(stream.due, stream.interval, now)
            if due or beat:
                yield from self._sample(stream, full=beat or not stream.suppress)

    # -- what is sent -------------------------------------------------------------------------------
    def _sample_value(self, stream: Stream) -> object | None:
        entries = stream.selection.entries(self.reader)
        values = self.reader.read(entries)
        if values:
            return aggregate(values)
        return {} if stream.selection.collection else None

    def _sample(self, stream: Stream, *, full: bool) -> Iterator[Any]:
        entries = stream.selection.entries(self.reader)
        values = self.reader.read(entries)
        current = {e.path: v for e, v in values.items()}
        if full:
            stream.last = current
            value = aggregate(values) if values else ({} if stream.selection.collection else None)
            if value is not None:
                yield self._send(stream, [(stream.full, value)], [])
            return
        changed = {e: _changed(v, stream.last.get(e.path)) for e, v in values.items()}
        changed = {e: v for e, v in changed.items() if v is not None}
        gone = [p for p in stream.last if p not in current]
        stream.last = current
        if changed or gone:
            updates = [(stream.full, aggregate(changed))] if changed else []
            yield self._send(stream, updates, gone)

    def _resend(self, stream: Stream) -> Iterator[Any]:
        values = self.reader.read(stream.selection.entries(self.reader))
        stream.last = {e.path: v for e, v in values.items()}
        if values:
            yield self._send(stream, [(e.path, v) for e, v in sorted(values.items(), key=_by_label)], [])

    def _changes(self, dirty: dict[tuple[str, str, str], None]) -> Iterator[Any]:
        for stream in self.streams:
            if not stream.on_change:
                continue
            affected = self._affected(stream.selection, dirty)
            if not affected:
                continue
            values = self.reader.read(affected.values())
            updates, deletes = [], []
            for path, entry in affected.items():
                value = values.get(entry)
                if value is None:
                    if stream.last.pop(path, None) is not None:
                        deletes.append(path)
                elif stream.last.get(path) != value:
                    stream.last[path] = value
                    updates.append((path, value))
            if updates or deletes:
                yield self._send(stream, updates, deletes)

    def _affected(self, selection: Selection, dirty: dict[tuple[str, str, str], None]) -> dict[Path, Entry]:
        """The entries of ``selection`` that the dirty keys touch, by path."""
        tables = selection.tables
        affected: dict[Path, Entry] = {}
        for db, table, key in dirty:
            if db == selection.db and (tables is None or table in tables):
                for entry in selection.affected(self.reader, table, key):
                    affected[entry.path] = entry
        return affected

    def _send(self, stream: Stream, updates: list[tuple[Path, object]], deletes: list[Path]) -> Any:
        return update_response(notification(self.prefix, stream.origin, updates, deletes, self.encoding, now_ns()))


def _by_label(item: tuple[Entry, object]) -> tuple[str, ...]:
    return item[0].label


def _next_tick(due: float, interval: float, now: float) -> float:
    """The next tick after ``due`` that is still ahead of ``now`` (missed ticks are skipped)."""
    due += interval
    if due <= now:
        due += interval * (int((now - due) // interval) + 1)
    return due


def _changed(value: object, before: object) -> object | None:
    """What of ``value`` differs from ``before`` (for a row: the changed fields), or None."""
    if value == before:
        return None
    if isinstance(value, dict) and isinstance(before, dict):
        return {f: v for f, v in value.items() if before.get(f) != v} or None
    return value


__all__ = ["MIN_INTERVAL_S", "ONCE", "POLL", "STREAM", "Session", "Sources", "Stream", "interval_s", "plan_streams"]
