"""Switch initialisation (orchagent's main: the switch, its built-in objects, the loopback RIF) and
SwitchOrch for APPL_DB SWITCH_TABLE (hash seeds, FDB aging, ordered ECMP).
"""

from __future__ import annotations

import logging

from nos.daemon.errors import DaemonFatal
from nos.daemon.task import Result
from nos.db import Table
from nos.db.connector import Databases
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_mac
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB
from nos.schema.tables import APP_SWITCH_TABLE_NAME, CFG_DEVICE_METADATA_TABLE_NAME, STATE_SWITCH_CAPABILITY_TABLE_NAME
from orchagent.core.deps import OrchDeps, SwitchContext
from orchagent.sairedis import SaiError, SaiRedis

log = logging.getLogger(__name__)

DEFAULT_MAC = "02:00:00:00:00:01"
INIT_VIEW = "SAI_REDIS_NOTIFY_SYNCD_INIT_VIEW"
APPLY_VIEW = "SAI_REDIS_NOTIFY_SYNCD_APPLY_VIEW"
CAPABILITY_KEY = "switch"

# SWITCH_TABLE field -> switch attribute
SWITCH_FIELDS = {
    "ecmp_hash_seed": "SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_SEED",
    "lag_hash_seed": "SAI_SWITCH_ATTR_LAG_DEFAULT_HASH_SEED",
    "fdb_aging_time": "SAI_SWITCH_ATTR_FDB_AGING_TIME",
    "vxlan_port": "SAI_SWITCH_ATTR_VXLAN_DEFAULT_PORT",
    "vxlan_router_mac": "SAI_SWITCH_ATTR_VXLAN_DEFAULT_ROUTER_MAC",
}


def init_switch(dbs: Databases, sai: SaiRedis) -> SwitchContext:
    """Open the session with syncd, start a view, create the switch and read its built-in objects.

    INIT_VIEW: on a running ASIC (orchagent restarted) syncd builds what follows into a temporary view
    while the current one keeps forwarding; ``apply_view`` ends it once orchagent has replayed what the
    databases ask for (on an empty ASIC there is nothing to compare, and it is a no-op)."""
    meta = Table(dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}
    mac = sai_mac(meta.get("mac", DEFAULT_MAC))
    sai.begin()
    sai.notify_syncd(INIT_VIEW)
    created = sai.apply([SaiOp.create(T.SWITCH, sai.switch_id, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true"),
                                      ("SAI_SWITCH_ATTR_SRC_MAC_ADDRESS", mac))])
    if not created.ok:
        raise SaiError(f"switch create refused: {created.status} {created.reason}")
    attrs = sai.get(T.SWITCH, sai.switch_id, "SAI_SWITCH_ATTR_CPU_PORT", "SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID",
                    "SAI_SWITCH_ATTR_DEFAULT_VLAN_ID", "SAI_SWITCH_ATTR_DEFAULT_1Q_BRIDGE_ID",
                    "SAI_SWITCH_ATTR_NUMBER_OF_ECMP_GROUPS")
    vr = attrs["SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID"]
    loopback = sai.alloc(T.ROUTER_INTERFACE)
    made = sai.apply([SaiOp.create(T.ROUTER_INTERFACE, loopback, ("SAI_ROUTER_INTERFACE_ATTR_VIRTUAL_ROUTER_ID", vr),
                                   ("SAI_ROUTER_INTERFACE_ATTR_TYPE", "SAI_ROUTER_INTERFACE_TYPE_LOOPBACK"),
                                   ("SAI_ROUTER_INTERFACE_ATTR_MTU", "9100"))])
    if not made.ok:
        raise SaiError(f"loopback router interface refused: {made.status} {made.reason}")
    ctx = SwitchContext(
        switch_id=sai.switch_id, cpu_port=attrs["SAI_SWITCH_ATTR_CPU_PORT"], default_vr=vr,
        default_vlan=attrs["SAI_SWITCH_ATTR_DEFAULT_VLAN_ID"],
        default_bridge=attrs["SAI_SWITCH_ATTR_DEFAULT_1Q_BRIDGE_ID"], loopback_rif=loopback, src_mac=mac,
        ecmp_groups=int(attrs["SAI_SWITCH_ATTR_NUMBER_OF_ECMP_GROUPS"]),
    )
    Table(dbs[STATE_DB], STATE_SWITCH_CAPABILITY_TABLE_NAME).set(CAPABILITY_KEY, {
        "MAX_NEXTHOP_GROUP_COUNT": str(ctx.ecmp_groups), "ORDERED_ECMP_CAPABLE": "false",
    })
    return ctx


def apply_view(sai: SaiRedis) -> None:
    """APPLY_VIEW: the view orchagent rebuilt becomes the ASIC's (syncd keeps what did not change). A
    refusal leaves orchagent with a view the ASIC does not have: fatal, the restart builds it again."""
    try:
        sai.notify_syncd(APPLY_VIEW)
    except SaiError as exc:
        raise DaemonFatal(f"APPLY_VIEW refused: {exc}") from exc
    log.info("orchagent.view.applied")


class SwitchOrch:
    """APPL_DB SWITCH_TABLE:switch: switch-wide attributes and the ordered-ECMP setting."""

    CONSUMES = ((APPL_DB, APP_SWITCH_TABLE_NAME),)
    PRODUCES = ((STATE_DB, STATE_SWITCH_CAPABILITY_TABLE_NAME),)

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.capability = Table(deps.dbs[STATE_DB], STATE_SWITCH_CAPABILITY_TABLE_NAME)

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if task.is_del:
            return Result.ignored("switch settings stay until changed")
        ops = [SaiOp.set(T.SWITCH, self.deps.switch.switch_id, SWITCH_FIELDS[f], sai_mac(v) if "mac" in f else v)
               for f, v in task.fvs if f in SWITCH_FIELDS]
        result = self.deps.sai.apply(ops)
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        ordered = task.fields.get("ordered_ecmp")
        if ordered in ("true", "false"):
            self.deps.switch.ordered_ecmp = ordered == "true"
            self.capability.set(CAPABILITY_KEY, {"ORDERED_ECMP_CAPABLE": ordered})
        return Result.success()

ORCH = SwitchOrch
PRIORITY = 0
