"""A store rebuilt from its ASIC_STATE rows (syncd_sim.restore, as after a syncd restart) compiles to
the same tables as the store that wrote them."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from nos.sai.keys import object_key
from nos.sai.types import ObjectType as T
from syncd_sim.behaviours import AsicBehaviour
from syncd_sim.compile import compile_store
from syncd_sim.objects import ObjectStore
from syncd_sim.platform import Platform
from syncd_sim.restore import restore
from tests.unit.syncd_sim.compile.switchkit import SwitchKit


def _same(a: object, b: object) -> None:
    for f in fields(a):  # type: ignore[arg-type]
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), f.name
        elif isinstance(x, tuple) and x and hasattr(x[0], "__dataclass_fields__"):
            for i, j in zip(x, y, strict=True):
                _same(i, j)
        else:
            assert x == y, f.name


def test_restored_store_compiles_to_the_same_tables():
    kit = SwitchKit(n_ports=4)
    vlan = kit.vlan(100)
    kit.member(vlan, 100, kit.ports[3], tagged=False)
    lag = kit.lag(1, 2)
    rif = kit.rif_port(kit.ports[0])
    lag_rif = kit.rif_port(lag)
    nh = kit.neighbor(rif, "10.0.0.1", "00:00:00:00:00:01")
    nh2 = kit.neighbor(lag_rif, "10.0.1.1", "00:00:00:00:01:01")
    group, _ = kit.group(nh, nh2)
    kit.route("192.168.0.0/16", group)
    kit.route("2001:db8::/32", nh2)
    dscp = kit.qos_map("SAI_QOS_MAP_TYPE_DSCP_TO_TC", "dscp", "tc", {3: 3, 4: 4})
    kit.set(T.PORT, kit.ports[0], "SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP", dscp)
    rows = {object_key(o.object_type, o.object_id): dict(o.attrs) or {"NULL": "NULL"}
            for o in kit.store.objects.values()}
    d = kit.behaviour.defaults
    builtins = {"switch": d.switch, "cpu_port": d.cpu_port, "default_vr": d.default_vr,
                "default_vlan": d.default_vlan, "default_bridge": d.default_bridge}
    behaviour = AsicBehaviour(Platform("test"))
    again = ObjectStore(kit.alloc, behaviour)
    restore(again, behaviour, rows, builtins)
    before, after = compile_store(kit.store, version=1), compile_store(again, version=1)
    for part in ("ports", "qos", "buffers", "watchdog", "l2", "l3"):
        _same(getattr(before, part), getattr(after, part))
    assert after.l3.nhg_members and after.ports.names[0] == "Ethernet0" and int(after.qos.dscp_to_tc[0, 3]) == 3
