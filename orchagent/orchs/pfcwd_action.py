"""What the PFC watchdog does to a stormed queue (swss orchagent/pfcactionhandler.cpp), as the
virtual-switch platform does (orchdaemon.cpp: ``PfcWdSwOrch<PfcWdZeroBufferHandler, PfcWdLossyHandler>``):

* ``alert``: nothing on the ASIC (PfcWdActionHandler: status and counters only).
* ``forward`` (PfcWdLossyHandler): the queue's priority leaves the port's PFC mask,
  ``SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL`` &= ~(1 << index); the port stops honouring pause frames on it,
  so the queue drains as a lossy queue. Restoring puts the bit back (|= 1 << index, on the mask as it
  is then, as SONiC does).
* ``drop`` (PfcWdZeroBufferHandler): the same, and the queue's ``SAI_QUEUE_ATTR_BUFFER_PROFILE_ID``
  becomes a zero buffer profile (egress pool of size 0, dynamic; profile size 0, dynamic_th -8), so
  every packet for it is dropped; restoring puts the queue's previous profile back. SONiC keeps the zero
  pool and profile for ever once made; here they are removed when no queue uses them any more.

The masks and profiles are read from the ASIC (a SAI get) when the action starts and ends, as the
original handlers did, so the watchdog needs nothing from the QoS or buffer orchs. Not modelled:
asymmetric PFC (``SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_TX/RX``) and SONiC's queue lock against
BufferOrch (a BUFFER_QUEUE change during a drop storm is overwritten at restoration).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from orchagent.orchs.pfcwd_rows import HwStats
from orchagent.sairedis import SaiRedis

log = logging.getLogger(__name__)

PFC_ATTR = "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL"
QUEUE_PROFILE = "SAI_QUEUE_ATTR_BUFFER_PROFILE_ID"
NULL_OID = "oid:0x0"
LOSSY_ACTIONS = ("drop", "forward")


@dataclass
class Handler:
    """An action in force on one queue (SONiC's handler object, alive while the storm lasts)."""

    queue: str
    port: str          # port oid
    index: int
    action: str
    base: HwStats      # the queue's counters when the storm (or the last periodic commit) began
    saved_profile: str | None = None   # the queue's profile before the zero profile (drop)


def pfc_mask_without(mask: int, index: int) -> int:
    return mask & ~(1 << index) & 0xFF


def pfc_mask_with(mask: int, index: int) -> int:
    return (mask | (1 << index)) & 0xFF


class Actions:
    """Starts and ends the actions on the ASIC."""

    def __init__(self, sai: SaiRedis) -> None:
        self.sai = sai
        self.zero_pool = ""
        self.zero_profile = ""
        self.zero_users = 0

    def start(self, handler: Handler) -> None:
        if handler.action not in LOSSY_ACTIONS:
            return
        self._set_pfc(handler.port, pfc_mask_without(self._pfc_mask(handler.port), handler.index))
        if handler.action == "drop":
            handler.saved_profile = self._get(T.QUEUE, handler.queue, QUEUE_PROFILE) or NULL_OID
            if self._zero_profile() and self._set(T.QUEUE, handler.queue, QUEUE_PROFILE, self.zero_profile):
                self.zero_users += 1
            else:
                handler.saved_profile = None

    def end(self, handler: Handler) -> None:
        if handler.action not in LOSSY_ACTIONS:
            return
        if handler.saved_profile is not None:
            self._set(T.QUEUE, handler.queue, QUEUE_PROFILE, handler.saved_profile)
            handler.saved_profile = None
            self.zero_users -= 1
            if self.zero_users <= 0:
                self._drop_zero_profile()
        self._set_pfc(handler.port, pfc_mask_with(self._pfc_mask(handler.port), handler.index))

    # -- the ASIC --------------------------------------------------------------------------------
    def _pfc_mask(self, port: str) -> int:
        value = self._get(T.PORT, port, PFC_ATTR)
        return int(value) if value is not None and value.isdecimal() else 0

    def _set_pfc(self, port: str, mask: int) -> None:
        self._set(T.PORT, port, PFC_ATTR, str(mask))

    def _get(self, kind: T, oid: str, attr: str) -> str | None:
        """The attribute's value, or None when it was never set (the ASIC answers NOT_SUPPORTED)."""
        result = self.sai.apply([SaiOp.get(kind, oid, attr)])
        return result.values[0].get(attr) if result.ok else None

    def _set(self, kind: T, oid: str, attr: str, value: str) -> bool:
        result = self.sai.apply([SaiOp.set(kind, oid, attr, value)])
        if not result.ok:
            log.error("orch.pfcwd.sai_failed %s %s %s=%s: %s %s", kind.sai_name, oid, attr, value,
                      result.status, result.reason)
        return result.ok

    def _zero_profile(self) -> bool:
        if self.zero_profile:
            return True
        pool, profile = self.sai.alloc(T.BUFFER_POOL), self.sai.alloc(T.BUFFER_PROFILE)
        result = self.sai.apply([
            SaiOp.create(T.BUFFER_POOL, pool, ("SAI_BUFFER_POOL_ATTR_SIZE", "0"),
                         ("SAI_BUFFER_POOL_ATTR_TYPE", "SAI_BUFFER_POOL_TYPE_EGRESS"),
                         ("SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE", "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC")),
            SaiOp.create(T.BUFFER_PROFILE, profile, ("SAI_BUFFER_PROFILE_ATTR_POOL_ID", pool),
                         ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"),
                         ("SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE", "0"),
                         ("SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH", "-8")),
        ])
        if not result.ok:
            log.error("orch.pfcwd.zero_profile_failed %s %s", result.status, result.reason)
            return False
        self.zero_pool, self.zero_profile = pool, profile
        return True

    def _drop_zero_profile(self) -> None:
        result = self.sai.apply([SaiOp.remove(T.BUFFER_PROFILE, self.zero_profile),
                                 SaiOp.remove(T.BUFFER_POOL, self.zero_pool)])
        if not result.ok:
            log.error("orch.pfcwd.zero_profile_remove_failed %s %s", result.status, result.reason)
        self.zero_pool = self.zero_profile = ""
        self.zero_users = 0
