"""Building the answers: Notifications with a timestamp, the request's prefix, updates and deletes.

Update paths are relative to the request's prefix when they extend its elements (the usual case);
an entry whose full path no longer starts with the prefix elements (a wildcard inside the prefix was
replaced by a port name) is sent with the prefix reduced to its origin and target and a full path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.encoding import encode
from nos.api.gnmi.paths import Elem, GPath, to_proto


def now_ns() -> int:
    return time.time_ns()


def notification(prefix: GPath, origin: str, updates: Sequence[tuple[tuple[Elem, ...], object]],
                 deletes: Sequence[tuple[Elem, ...]], encoding: int, timestamp: int | None = None) -> Any:
    """One Notification; ``updates`` and ``deletes`` carry full element paths."""
    full_paths = [p for p, _ in updates] + list(deletes)
    cut = len(prefix.elems)
    relative = all(p[:cut] == prefix.elems for p in full_paths)
    head = prefix if relative else GPath(prefix.origin, (), prefix.target)
    skip = cut if relative else 0
    return gnmi_pb2.Notification(
        timestamp=timestamp if timestamp is not None else now_ns(),
        prefix=to_proto(head),
        update=[gnmi_pb2.Update(path=to_proto(GPath(origin, path[skip:])), val=encode(value, encoding))
                for path, value in updates],
        delete=[to_proto(GPath(origin, path[skip:])) for path in deletes],
    )


def update_response(note: Any) -> Any:
    return gnmi_pb2.SubscribeResponse(update=note)


def sync_response() -> Any:
    return gnmi_pb2.SubscribeResponse(sync_response=True)


__all__ = ["notification", "now_ns", "sync_response", "update_response"]
