"""A link going dark on one real switch (issue 17): leaf1 of configs/labs/leaf-spine.yaml boots from its
generated config with 10.2.0.0/24 over both spines (10.0.0.1 via Ethernet248, 10.0.0.3 via
Ethernet252). A lab's STATE_DB ``NOS_LINK_TABLE|Ethernet248`` carrier down takes the port oper down
(APPL_DB and STATE_DB PORT_TABLE), its next hop out of the ECMP group in ASIC_DB, and every traced flow
to the other spine; carrier up (or no row) puts it all back. With both uplinks dark the route keeps its
(empty) group and the ASIC drops, as SONiC's routeorch leaves it. A syncd_sim or orchagent killed while
the link is dark comes back with it still out."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nos.db.connector import Databases
from nos.traffic.client import trace_packet
from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch, nos, start_switch
from tests.e2e.faults.workload import daemon_pid

pytestmark = pytest.mark.e2e
LAB = Path(__file__).resolve().parents[2] / "configs" / "labs" / "leaf-spine.yaml"
PREFIX = "10.2.0.0/24"
DARK, LIT = "Ethernet248", "Ethernet252"
BOTH = {"10.0.0.1", "10.0.0.3"}  # spine1 over Ethernet248, spine2 over Ethernet252
ROW = f"NOS_LINK_TABLE|{DARK}"
FLOWS = range(49152, 49152 + 24)  # UDP source ports: enough flows to hash onto both members


@pytest.fixture(scope="module")
def leaf1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    base = tmp_path_factory.mktemp("links")
    nos("lab", "config", str(LAB), "leaf1", "-o", str(base / "leaf1.json"))
    sw = start_switch(base / "leaf1", "--gnmi-port", "0", "--config", str(base / "leaf1.json"))
    try:
        wait_until(lambda: group_members(sw) == BOTH, timeout=30)
        yield sw
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)


def group_members(sw: RunningSwitch) -> set[str] | None:
    """The next-hop IPs of the ECMP group that ASIC_DB's route to PREFIX points at (None: no such route/group)."""
    asic = sw.db(1)
    routes = [k for k in asic.scan_iter("ASIC_STATE:SAI_OBJECT_TYPE_ROUTE_ENTRY:*", count=1000)
              if json.loads(k.split(":", 2)[2])["dest"] == PREFIX]
    group = str(asic.hget(routes[0], "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID") or "") if routes else ""
    if not group or not asic.exists(f"ASIC_STATE:SAI_OBJECT_TYPE_NEXT_HOP_GROUP:{group}"):
        return None
    ips: set[str] = set()
    for key in asic.scan_iter("ASIC_STATE:SAI_OBJECT_TYPE_NEXT_HOP_GROUP_MEMBER:*", count=1000):
        member = asic.hgetall(key)
        if member.get("SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID") == group:
            nh = member["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"]
            ips.add(str(asic.hget(f"ASIC_STATE:SAI_OBJECT_TYPE_NEXT_HOP:{nh!s}", "SAI_NEXT_HOP_ATTR_IP")))
    return ips


def oper(sw: RunningSwitch, port: str) -> tuple[object, object]:
    """(APPL_DB PORT_TABLE oper_status, STATE_DB PORT_TABLE netdev_oper_status) of ``port``."""
    return sw.db(0).hget(f"PORT_TABLE:{port}", "oper_status"), sw.db(6).hget(f"PORT_TABLE|{port}", "netdev_oper_status")


def egress_ports(sw: RunningSwitch) -> set[str]:
    """Where the traced flows from a host (Ethernet0) to leaf2's subnet leave; a dropped flow counts as its reason."""
    dbs = Databases(sw.endpoints["redis"])
    try:
        out = set()
        for sport in FLOWS:
            result = trace_packet(dbs, {"in_port": "Ethernet0", "dst_ip": "10.2.0.3", "ip_proto": 17,
                                        "l4_src": sport, "l4_dst": 4791})["result"]
            out.add(result["egress_port"] if result["action"] == "forward" else f"drop:{result['drop_reason']}")
        return out
    finally:
        dbs.close()


def test_carrier_down_takes_the_port_and_its_next_hop_out_of_the_ecmp_group(leaf1: RunningSwitch) -> None:
    assert egress_ports(leaf1) == {DARK, LIT}  # both spines carry some of the flows
    leaf1.db(6).hset(ROW, mapping={"peer": "spine1:Ethernet0", "carrier": "down"})
    try:
        wait_until(lambda: oper(leaf1, DARK) == ("down", "down"), timeout=10)
        assert oper(leaf1, LIT) == ("up", "up")
        wait_until(lambda: group_members(leaf1) == {"10.0.0.3"}, timeout=10)
        assert egress_ports(leaf1) == {LIT}  # none dropped: the dark port is no member any more
        trace = json.loads(leaf1.nos("trace", "packet", "--json", "--in-port", "Ethernet0",
                                     "--dst-ip", "10.2.0.3").stdout)
        assert trace["result"]["egress_port"] == LIT
        [shown] = json.loads(leaf1.nos("show", "interfaces", "status", DARK, "--json").stdout)
        assert (shown["interface"], shown["admin"], shown["oper"]) == (DARK, "up", "down")
    finally:
        leaf1.db(6).hset(ROW, "carrier", "up")
        wait_until(lambda: group_members(leaf1) == BOTH, timeout=10)


def test_carrier_up_or_no_row_puts_the_member_back(leaf1: RunningSwitch) -> None:
    restores: list[Callable[[], object]] = [lambda: leaf1.db(6).hset(ROW, "carrier", "up"),
                                            lambda: leaf1.db(6).delete(ROW)]
    for restore in restores:
        leaf1.db(6).hset(ROW, mapping={"peer": "spine1:Ethernet0", "carrier": "down"})
        wait_until(lambda: group_members(leaf1) == {"10.0.0.3"}, timeout=10)
        restore()
        wait_until(lambda: oper(leaf1, DARK) == ("up", "up"), timeout=10)
        wait_until(lambda: group_members(leaf1) == BOTH, timeout=10)
        assert egress_ports(leaf1) == {DARK, LIT}


def test_with_both_uplinks_dark_the_route_keeps_its_empty_group_and_drops(leaf1: RunningSwitch) -> None:
    """routeorch invalidnexthopinNextHopGroup: every member withdrawn, the route still points at its group
    (no fallback asked for), so the ASIC drops; the members come back with the light."""
    db = leaf1.db(6)
    for port, peer in ((DARK, "spine1:Ethernet0"), (LIT, "spine2:Ethernet0")):
        db.hset(f"NOS_LINK_TABLE|{port}", mapping={"peer": peer, "carrier": "down"})
    try:
        wait_until(lambda: group_members(leaf1) == set(), timeout=10)
        assert egress_ports(leaf1) == {"drop:ecmp_group_empty"}
    finally:
        for port in (DARK, LIT):
            db.hset(f"NOS_LINK_TABLE|{port}", "carrier", "up")
    wait_until(lambda: group_members(leaf1) == BOTH, timeout=10)
    assert egress_ports(leaf1) == {DARK, LIT}


@pytest.mark.parametrize("victim", ["syncd", "orchagent"])
def test_a_restarted_daemon_keeps_a_dark_link_out(leaf1: RunningSwitch, victim: str) -> None:
    """Level-triggered: a syncd_sim killed while the link is dark reads the row again at start; an
    orchagent killed then rebuilds its groups (temporary view) without the dark port's next hop."""
    leaf1.db(6).hset(ROW, mapping={"peer": "spine1:Ethernet0", "carrier": "down"})
    try:
        wait_until(lambda: group_members(leaf1) == {"10.0.0.3"}, timeout=10)
        old = daemon_pid(leaf1, victim)
        os.kill(old, signal.SIGKILL)
        wait_until(lambda: restarted(leaf1, victim, old), timeout=30)
        wait_until(lambda: not leaf1.db(1).hget("NOS_SYNCD_STATE", "view"), timeout=30)  # APPLY_VIEW done
        assert oper(leaf1, DARK) == ("down", "down")
        assert group_members(leaf1) == {"10.0.0.3"}
        assert egress_ports(leaf1) == {LIT}
    finally:
        leaf1.db(6).hset(ROW, "carrier", "up")
    wait_until(lambda: group_members(leaf1) == BOTH, timeout=10)


def restarted(sw: RunningSwitch, name: str, old_pid: int) -> bool:
    row = sw.db(6).hgetall(f"NOS_DAEMON_TABLE|{name}")
    return row.get("status") == "running" and int(row.get("pid", "0")) not in (0, old_pid)
