"""VRF manager (SONiC's vrfmgrd): CONFIG_DB VRF -> APPL_DB VRF_TABLE, STATE_DB VRF_TABLE.

* ``VRF|Vrf<name>`` creates the (simulated) VRF netdev, announced as STATE_DB ``VRF_TABLE|<name>``
  {state: ok}, and writes APPL_DB ``VRF_TABLE:<name>`` with the fields vrfmgrd forwards
  (swss:cfgmgr/vrf_appl_fields.cpp ``vrfApplForwardFields``: v4, v6, src_mac, ttl_action, ip_opt_action,
  l3_mc_action, fallback, vni, mgmtVrfEnabled, in_band_mgmt_enabled). A row left with none of them
  (``NULL`` placeholder, or only rd/rt metadata) is written as {``NULL``: ``NULL``}, as vrfmgrd does, so
  VRFOrch still creates the virtual router.
* A ``vni`` already mapped to another VRF is refused (vrfmgrd ``doVrfVxlanTableCreateTask``).
* Delete removes both rows.

Deviations: the name must match sonic-vrf.yang (``Vrf`` + 1..12 of ``[a-zA-Z0-9_-]``; vrfmgrd accepts
any name). vrfmgrd delays a delete until VRFOrch has created, then removed, its object (STATE_DB
VRF_OBJECT_TABLE) because the kernel VRF must outlive it; with no kernel here both rows go at once.
The VRF-to-VNI map for EVPN (APPL_DB VXLAN_VRF_TABLE, needs VXLAN_EVPN_NVO) is not written here.
"""

from __future__ import annotations

from collections.abc import Mapping

from nos.daemon.consumer import TableConsumer
from nos.daemon.runner import Runner
from nos.daemon.task import Result
from nos.db import ProducerStateTable, SubscriberStateTable, Table
from nos.db.configdb import NULL_FIELD
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.config import MAC, VRF_NAME, Bool, Choice, Int, Leaf
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import APP_VRF_TABLE_NAME, CFG_VRF_TABLE_NAME, STATE_VRF_TABLE_NAME

CONSUMES = ((CONFIG_DB, CFG_VRF_TABLE_NAME),)
PRODUCES = ((APPL_DB, APP_VRF_TABLE_NAME), (STATE_DB, STATE_VRF_TABLE_NAME))

# vrf_appl_fields.cpp vrfApplForwardFields, in that order.
FORWARDED_FIELDS = ("v4", "v6", "src_mac", "ttl_action", "ip_opt_action", "l3_mc_action", "fallback", "vni",
                    "mgmtVrfEnabled", "in_band_mgmt_enabled")
EMPTY_VRF = {NULL_FIELD: NULL_FIELD}  # what vrfmgrd writes when no forwarded field remains
STATE_OK = {"state": "ok"}

_PACKET_ACTION = Choice("drop", "forward", "copy", "copy_cancel", "trap", "log", "deny", "transit")
VRF_FIELD_RULES: Mapping[str, Leaf] = {
    "v4": Bool(), "v6": Bool(), "src_mac": MAC, "fallback": Bool(), "vni": Int(0, 16777215),
    "ttl_action": _PACKET_ACTION, "ip_opt_action": _PACKET_ACTION, "l3_mc_action": _PACKET_ACTION,
}


def vrf_to_appl(name: str, fields: Mapping[str, str]) -> dict[str, str]:
    """APPL_DB VRF_TABLE fields for a CONFIG_DB VRF row (pure); raises ValueError on bad data."""
    reason = VRF_NAME.check(name)
    if reason is not None:
        raise ValueError(f"'{name}' {reason}")
    for field, leaf in VRF_FIELD_RULES.items():
        if field in fields and (reason := leaf.check(fields[field])) is not None:
            raise ValueError(f"field '{field}' = '{fields[field]}': {reason}")
    row = {f: fields[f] for f in FORWARDED_FIELDS if f in fields}
    return row or dict(EMPTY_VRF)


def vni_of(row: Mapping[str, str]) -> int:
    """The L3 VNI of an APPL_DB VRF row (0 = none)."""
    return int(row.get("vni") or 0)


class VrfMgr:
    """Forwards VRFs and announces their netdevs; remembers what it wrote (and the VNIs in use)."""

    def __init__(self, dbs: Databases) -> None:
        self.appl = ProducerStateTable(dbs[APPL_DB], APP_VRF_TABLE_NAME)
        self.state = Table(dbs[STATE_DB], STATE_VRF_TABLE_NAME)
        self.written: dict[str, dict[str, str]] = {}

    def handle(self, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return self._delete(task.key)
        try:
            row = vrf_to_appl(task.key, task.fields)
        except ValueError as exc:
            return Result.invalid(str(exc))
        vni = vni_of(row)
        holder = next((n for n, r in self.written.items() if n != task.key and vni and vni_of(r) == vni), None)
        if holder is not None:
            return Result.invalid(f"vni {vni} is already mapped to {holder}")
        if self.written.get(task.key) == row:
            return Result.ignored("unchanged")
        self.state.set(task.key, STATE_OK)
        self.appl.set(task.key, row)
        self.written[task.key] = row
        return Result.success()

    def _delete(self, name: str) -> Result:
        if self.written.pop(name, None) is None:
            return Result.ignored(f"{name} does not exist")
        self.appl.delete(name)
        self.state.delete(name)
        return Result.success()

    def register(self, dbs: Databases, runner: Runner) -> None:
        source = SubscriberStateTable(dbs[CONFIG_DB], CFG_VRF_TABLE_NAME)
        runner.add_consumer(TableConsumer(CONFIG_DB, CFG_VRF_TABLE_NAME, source, self.handle))


def register(dbs: Databases, runner: Runner) -> None:
    """Wire the VRF manager into cfgmgrd."""
    VrfMgr(dbs).register(dbs, runner)
