"""The gNMI service: Capabilities, Get, Set and Subscribe over the switch's databases.

Every failure ends the RPC with a status and a message naming the path and the reason; nothing a
client sends makes the server crash (unexpected errors answer INTERNAL and are logged). Sets are
serialised in the process (one CONFIG_DB transaction at a time), so concurrent clients do not make
each other's transactions retry. A Set plans on the process's CONFIG_DB cache
(``ConfigDBConnector.recent_snapshot``: no round trip after its own previous commit); once a Set's
answer is sent, the cache reads that Set's events, so that the next Set has none to read.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from nos.api.gnmi import write
from nos.api.gnmi.changes import ChangeFeed
from nos.api.gnmi.encoding import JSON, JSON_IETF, check_encoding
from nos.api.gnmi.errors import GnmiError, InvalidArgument, NotFound
from nos.api.gnmi.paths import GPath, addresses, from_proto
from nos.api.gnmi.reader import Reader, aggregate
from nos.api.gnmi.responses import notification, now_ns
from nos.api.gnmi.selection import resolve
from nos.api.gnmi.subscribe import ONCE, POLL, STREAM, Session, Sources
from nos.api.gnmi.virtual import NameMaps, virtual_of
from nos.api.gnmi.wait import until_applied, wants_applied
from nos.db import ConfigDBConnector
from nos.db.connector import Databases
from nos.schema.dbconfig import CONFIG_DB

log = logging.getLogger(__name__)

GNMI_VERSION = "0.8.0"
MODELS = (("sonic-db", "SONiC", "0.1.0"),)
_OPS = {"delete": gnmi_pb2.UpdateResult.DELETE, "replace": gnmi_pb2.UpdateResult.REPLACE,
        "update": gnmi_pb2.UpdateResult.UPDATE}

F = TypeVar("F", bound=Callable[..., Any])


def _abort(context: Any, error: GnmiError) -> None:
    context.abort(getattr(grpc.StatusCode, error.code), error.message)


def answers(method: F) -> F:
    """Turn GnmiError (and any unexpected error) into the RPC's status."""
    @functools.wraps(method)
    def wrapper(self: Any, request: Any, context: Any) -> Any:
        try:
            return method(self, request, context)
        except GnmiError as error:
            _abort(context, error)
        except Exception:
            log.exception("gnmi.%s.failed", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"{method.__name__} failed inside the server; see its log")
        return None
    return wrapper  # type: ignore[return-value]


class GnmiService(gnmi_pb2_grpc.gNMIServicer):  # type: ignore[misc]
    """The servicer; one per process, shared by every RPC thread."""

    def __init__(self, dbs: Databases, feed: ChangeFeed) -> None:
        self.dbs = dbs
        self.reader = Reader(dbs)
        self.maps = NameMaps(self.reader)
        self.sources = Sources(self.reader, self.maps, feed)
        self.cdb = ConfigDBConnector(dbs[CONFIG_DB], cached=True)  # snapshots kept current by keyspace events
        self._set_lock = threading.Lock()

    @answers
    def Capabilities(self, request: Any, context: Any) -> Any:  # noqa: N802 - gRPC method name
        return gnmi_pb2.CapabilityResponse(
            supported_models=[gnmi_pb2.ModelData(name=n, organization=o, version=v) for n, o, v in MODELS],
            supported_encodings=[JSON, JSON_IETF], gNMI_version=GNMI_VERSION)

    @answers
    def Get(self, request: Any, context: Any) -> Any:  # noqa: N802
        encoding = check_encoding(request.encoding)
        prefix = from_proto(request.prefix)
        paths = [from_proto(p) for p in request.path]
        if not paths:
            if not prefix.elems:
                raise InvalidArgument("Get needs a path (the whole switch is not one value)")
            paths = [GPath(prefix.origin)]  # the prefix alone names what to get
        notes = []
        for path, address in zip(paths, addresses(prefix, paths, self.reader.names), strict=True):
            selection = resolve(address, self.reader.separator(address.db), self.maps)
            values = self.reader.read(selection.entries(self.reader))
            if not values:
                raise NotFound(f"{address.text}: {_missing(address)}")
            notes.append(notification(prefix, path.origin, [(address.full, aggregate(values))], [], encoding))
        return gnmi_pb2.GetResponse(notification=notes)

    @answers
    def Set(self, request: Any, context: Any) -> Any:  # noqa: N802
        ops = write.plan(request, self.reader.names)
        with self._set_lock:
            tx = write.run(self.cdb, ops)
        if context is not None:  # once the answer is sent: the cache reads this Set's events, not the next Set
            context.add_callback(self._catch_up)
            if tx is not None and tx.applied and wants_applied(context):
                until_applied(self.dbs)
        stamp = now_ns()
        results = [gnmi_pb2.UpdateResult(path=op.path, op=_OPS[op.kind]) for op in ops]
        return gnmi_pb2.SetResponse(prefix=request.prefix, response=results, timestamp=stamp)

    def _catch_up(self) -> None:
        """Read the CONFIG_DB cache's arrived events (gRPC calls it on its poller thread once the Set's
        status is sent); skipped if a Set is running, which reads them itself."""
        if self._set_lock.acquire(blocking=False):
            try:
                self.cdb.catch_up()
            finally:
                self._set_lock.release()

    def Subscribe(self, request_iterator: Any, context: Any) -> Iterator[Any]:  # noqa: N802
        try:
            first = next(request_iterator, None)
            if first is None:
                return
            if not first.HasField("subscribe"):
                raise InvalidArgument("the first SubscribeRequest must carry a SubscriptionList")
            session = Session(self.sources, first.subscribe)
            mode = first.subscribe.mode
            if mode == ONCE:
                yield from session.once()
            elif mode == POLL:
                yield from session.poll(request_iterator)
            elif mode == STREAM:
                yield from session.stream(context)
            else:
                raise InvalidArgument(f"unknown subscription list mode {mode}")
        except GnmiError as error:
            _abort(context, error)
        except grpc.RpcError:
            return  # the client went away while we were reading its requests
        except Exception:
            log.exception("gnmi.Subscribe.failed")
            context.abort(grpc.StatusCode.INTERNAL, "Subscribe failed inside the server; see its log")


def _missing(address: Any) -> str:
    if virtual_of(address) is not None:
        return ("no such port or counters (ports come from COUNTERS_PORT_NAME_MAP, queues and PGs from their name "
                "maps; a port's counters appear once the ASIC has written them)")
    if address.table is None:
        return f"{address.db} is empty"
    if address.keyed is None and not address.parts:
        return f"table {address.table} has no rows in {address.db}"
    return f"no such row or field in {address.db}"


__all__ = ["GNMI_VERSION", "GnmiService", "MODELS"]
