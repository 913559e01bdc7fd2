"""A gNMI Set that waits until its change has reached the ASIC: metadata ``nos-wait: applied``.

gNMI has no field for it; the metadata key is ours (any gRPC client's call metadata; pygnmi keeps its
metadata private: ``client._gNMIclient__metadata.append(("nos-wait", "applied"))`` before ``set``). Without it a
Set is answered once CONFIG_DB holds the change. With it, the answer waits until the pipeline has
processed the change (``nos.config.applied``); not in time: DEADLINE_EXCEEDED naming the hop that lags
(the change stays in CONFIG_DB).
"""

from __future__ import annotations

from typing import Any

from nos.api.gnmi.errors import GnmiError
from nos.config.applied import NotApplied, wait_applied
from nos.db.connector import Databases

WAIT_KEY = "nos-wait"


class NotAppliedInTime(GnmiError):
    """Raised when a waiting Set's change has not reached the ASIC in time (it is in CONFIG_DB)."""

    code = "DEADLINE_EXCEEDED"


def wants_applied(context: Any) -> bool:
    metadata = context.invocation_metadata() or ()
    return any(item.key == WAIT_KEY and item.value == "applied" for item in metadata)


def until_applied(dbs: Databases) -> None:
    try:
        wait_applied(dbs)
    except NotApplied as exc:
        raise NotAppliedInTime(f"the change is in CONFIG_DB, but {exc}") from None
