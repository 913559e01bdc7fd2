"""RouteOrch on real Redis and syncd_sim: default routes, single next hop, ECMP groups (shared,
ordered, weighted, capacity), connected and blackhole routes, VRFs, unresolved next hops, oper down."""

from __future__ import annotations

import pytest

from nos.db import ProducerStateTable
from orchagent.core.events import OperChanged
from orchagent.orchs.route import POP_BATCH
from tests.integration.orchagent.test_intf_orch import appl, asic_objects, asic_routes, l3_agent, route_interface

pytestmark = pytest.mark.integration

NH = "SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID"
ACTION = "SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION"


def three_peers(agent, dbs, n=3):
    """Ethernet0/4/8 routed (10.0.0.0/31, .2/31, .4/31) with resolved peers .1, .3, .5."""
    neigh = appl(dbs, "NEIGH_TABLE")
    for i in range(n):
        route_interface(agent, dbs, f"Ethernet{4 * i}", f"10.0.0.{2 * i}/31")
        neigh.set(f"Ethernet{4 * i}:10.0.0.{2 * i + 1}", {"neigh": f"00:00:00:00:00:0{i + 1}", "family": "IPv4"})
    agent.drive(lambda: len(agent.deps.l3.next_hops) == n)
    return {f"10.0.0.{2 * i + 1}": agent.deps.l3.next_hops[(f"10.0.0.{2 * i + 1}", f"Ethernet{4 * i}")].oid
            for i in range(n)}


def ecmp(nhs):
    return {"nexthop": ",".join(nhs), "ifname": ",".join(f"Ethernet{4 * (int(n.rsplit('.', 1)[1]) // 2)}" for n in nhs)}


def route(raw, agent, dest):
    return asic_routes(raw).get((dest, agent.deps.switch.default_vr))


def test_defaults_at_start(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs, 1)
    vr, cpu = agent.deps.switch.default_vr, agent.deps.switch.cpu_port
    routes = asic_routes(raw)
    assert routes[("0.0.0.0/0", vr)] == {ACTION: "SAI_PACKET_ACTION_DROP"}
    assert routes[("::/0", vr)] == {ACTION: "SAI_PACKET_ACTION_DROP"}
    assert routes[("fe80::/10", vr)] == {ACTION: "SAI_PACKET_ACTION_FORWARD", NH: cpu}
    assert routes[("fe80::ff:fe00:1/128", vr)] == {ACTION: "SAI_PACKET_ACTION_FORWARD", NH: cpu}  # 02:00:00:00:00:01
    assert raw(6).hgetall("ROUTE_TABLE|0.0.0.0/0") == {"state": "na"}
    assert raw(6).hgetall("ROUTE_TABLE|::/0") == {"state": "na"}


def test_single_next_hop_and_removal(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs, 1)
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("3.3.3.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "bgp"})
    agent.drive(lambda: route(raw, agent, "3.3.3.0/24"))
    assert route(raw, agent, "3.3.3.0/24") == {NH: nhs["10.0.0.1"]}
    assert agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].refs == 1
    routes.delete("3.3.3.0/24")
    agent.drive(lambda: route(raw, agent, "3.3.3.0/24") is None)
    assert agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].refs == 0


def test_ecmp_group_is_unordered_without_weights_and_shared(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs)
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("2.2.2.0/24", ecmp(["10.0.0.1", "10.0.0.3", "10.0.0.5"]))
    routes.set("2.2.3.0/24", ecmp(["10.0.0.5", "10.0.0.1", "10.0.0.3"]))  # same set, other order
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24") and route(raw, agent, "2.2.3.0/24"))
    group = route(raw, agent, "2.2.2.0/24")[NH]
    assert route(raw, agent, "2.2.3.0/24")[NH] == group
    assert asic_objects(raw, "NEXT_HOP_GROUP") == {
        group: {"SAI_NEXT_HOP_GROUP_ATTR_TYPE": "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"}}
    members = asic_objects(raw, "NEXT_HOP_GROUP_MEMBER").values()
    assert sorted(m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"] for m in members) == sorted(nhs.values())
    assert all(set(m) == {"SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID",
                          "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"} for m in members)
    routes.delete("2.2.2.0/24")
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24") is None)
    assert group in asic_objects(raw, "NEXT_HOP_GROUP")  # still used by 2.2.3.0/24
    routes.delete("2.2.3.0/24")
    agent.drive(lambda: asic_objects(raw, "NEXT_HOP_GROUP") == {})
    assert asic_objects(raw, "NEXT_HOP_GROUP_MEMBER") == {}
    assert all(nh.refs == 0 for nh in agent.deps.l3.next_hops.values())


def test_ordered_ecmp_numbers_members_and_weights_are_kept(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs)
    agent.deps.switch.ordered_ecmp = True
    appl(dbs, "ROUTE_TABLE").set("2.2.2.0/24", {**ecmp(["10.0.0.1", "10.0.0.3", "10.0.0.5"]), "weight": "1,2,3"})
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24"))
    group = route(raw, agent, "2.2.2.0/24")[NH]
    assert asic_objects(raw, "NEXT_HOP_GROUP")[group] == {
        "SAI_NEXT_HOP_GROUP_ATTR_TYPE": "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_ORDERED_ECMP"}
    found = asic_objects(raw, "NEXT_HOP_GROUP_MEMBER").values()
    members = {m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"]: m for m in found}
    for i, ip in enumerate(["10.0.0.1", "10.0.0.3", "10.0.0.5"], 1):
        assert members[nhs[ip]] == {"SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID": group,
                                    "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID": nhs[ip],
                                    "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_WEIGHT": str(i),
                                    "SAI_NEXT_HOP_GROUP_MEMBER_ATTR_SEQUENCE_ID": str(i)}


def test_connected_blackhole_and_default_routes(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs, 1)
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("10.0.0.0/31", {"nexthop": "0.0.0.0", "ifname": "Ethernet0", "protocol": "kernel"})
    routes.set("2.2.2.0/24", {"blackhole": "true"})
    routes.set("3000::/64", {"blackhole": "true"})
    routes.set("0.0.0.0/0", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})
    agent.drive(lambda: raw(6).hget("ROUTE_TABLE|0.0.0.0/0", "state") == "ok" and route(raw, agent, "3000::/64"))
    rif = agent.deps.l3.intfs["Ethernet0"].oid
    assert route(raw, agent, "10.0.0.0/31") == {NH: rif}
    assert route(raw, agent, "2.2.2.0/24") == route(raw, agent, "3000::/64") == {ACTION: "SAI_PACKET_ACTION_DROP"}
    assert route(raw, agent, "0.0.0.0/0") == {ACTION: "SAI_PACKET_ACTION_FORWARD", NH: nhs["10.0.0.1"]}
    routes.delete("0.0.0.0/0")
    agent.drive(lambda: raw(6).hget("ROUTE_TABLE|0.0.0.0/0", "state") == "na")
    assert route(raw, agent, "0.0.0.0/0") == {ACTION: "SAI_PACKET_ACTION_DROP", NH: "oid:0x0"}
    assert agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].refs == 0
    # a route moving from blackhole to a next hop forwards again
    routes.set("2.2.2.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24").get(NH) == nhs["10.0.0.1"])
    assert route(raw, agent, "2.2.2.0/24")[ACTION] == "SAI_PACKET_ACTION_FORWARD"


def test_skipped_excluded_and_invalid_rows(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    three_peers(agent, dbs, 1)
    before = asic_routes(raw)
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("10.0.0.0/32", {"nexthop": "0.0.0.0", "ifname": "Ethernet0"})   # full-mask own subnet: skipped
    routes.set("fe80::/64", {"nexthop": "::", "ifname": "Ethernet0"})          # link-local: skipped
    routes.set("5.5.5.0/24", {"nexthop": "10.0.0.1", "ifname": "Loopback0"})   # excluded: not in the ASIC
    routes.set("6.6.6.0/24", {"nexthop": "10.0.0.1"})                          # no ifname: invalid
    routes.set("7.7.7.0/24", {"nexthop_group": "g", "nexthop": "10.0.0.1", "ifname": "Ethernet0"})  # invalid
    consumer = next(c for c in agent.runner.consumers if c.table == "ROUTE_TABLE")
    agent.drive(lambda: consumer.stats.rejected >= 2 and not consumer.pending)
    assert asic_routes(raw) == before


def test_unresolved_next_hops_are_requested_and_a_stand_in_is_used(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs, 2)
    route_interface(agent, dbs, "Ethernet8", "10.0.0.4/31")
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("2.2.2.0/24", ecmp(["10.0.0.1", "10.0.0.3", "10.0.0.5"]))
    routes.set("4.4.4.0/24", {"nexthop": "10.0.0.5", "ifname": "Ethernet8"})
    # a ProducerStateTable request (nbrmgrd would pop it)
    agent.drive(lambda: raw(0).hgetall("_NEIGH_RESOLVE_TABLE:Ethernet8:10.0.0.5") == {"mac": "00:00:00:00:00:00"})
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24"))
    assert route(raw, agent, "2.2.2.0/24") == {NH: nhs["10.0.0.1"]}  # temporary: one resolved next hop
    assert route(raw, agent, "4.4.4.0/24") is None
    appl(dbs, "NEIGH_TABLE").set("Ethernet8:10.0.0.5", {"neigh": "00:00:00:00:00:03", "family": "IPv4"})
    agent.drive(lambda: route(raw, agent, "4.4.4.0/24")
                and route(raw, agent, "2.2.2.0/24")[NH] in asic_objects(raw, "NEXT_HOP_GROUP"))
    assert len(asic_objects(raw, "NEXT_HOP_GROUP_MEMBER")) == 3
    assert raw(0).sismember("NEIGH_RESOLVE_TABLE_DEL_SET", "Ethernet8:10.0.0.5")


def test_group_capacity_falls_back_to_a_single_next_hop(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs)
    agent.deps.switch.ecmp_groups = 1
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("2.2.2.0/24", ecmp(["10.0.0.1", "10.0.0.3"]))
    agent.drive(lambda: route(raw, agent, "2.2.2.0/24"))
    routes.set("2.2.3.0/24", ecmp(["10.0.0.3", "10.0.0.5"]))
    agent.drive(lambda: route(raw, agent, "2.2.3.0/24"))
    assert len(asic_objects(raw, "NEXT_HOP_GROUP")) == 1
    assert route(raw, agent, "2.2.3.0/24") == {NH: nhs["10.0.0.3"]}
    routes.delete("2.2.2.0/24")  # frees the group: the waiting route gets its own
    agent.drive(lambda: route(raw, agent, "2.2.3.0/24")[NH] in asic_objects(raw, "NEXT_HOP_GROUP"))


def test_oper_down_withholds_members_and_up_restores_them(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    three_peers(agent, dbs)
    appl(dbs, "ROUTE_TABLE").set("2.2.2.0/24", ecmp(["10.0.0.1", "10.0.0.3", "10.0.0.5"]))
    agent.drive(lambda: len(asic_objects(raw, "NEXT_HOP_GROUP_MEMBER")) == 3)
    agent.deps.registry.get("Ethernet0").oper_up = False
    agent.deps.bus.publish(OperChanged("Ethernet0", False))
    assert len(asic_objects(raw, "NEXT_HOP_GROUP_MEMBER")) == 2
    agent.deps.bus.publish(OperChanged("Ethernet0", True))
    assert len(asic_objects(raw, "NEXT_HOP_GROUP_MEMBER")) == 3


def test_routes_in_a_vrf(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    appl(dbs, "VRF_TABLE").set("Vrf_red", {"NULL": "NULL"})
    agent.drive(lambda: "Vrf_red" in agent.deps.l3.vrfs)
    route_interface(agent, dbs, "Ethernet4", "10.1.0.0/31", vrf="Vrf_red")
    appl(dbs, "NEIGH_TABLE").set("Ethernet4:10.1.0.1", {"neigh": "00:00:00:00:00:09", "family": "IPv4"})
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("Vrf_red:80.80.1.0/24", {"nexthop": "10.1.0.1", "ifname": "Ethernet4"})
    routes.set("Vrf_red:10.1.0.0/31", {"nexthop": "0.0.0.0", "ifname": "Ethernet4"})
    vrf = agent.deps.l3.vrfs["Vrf_red"]
    agent.drive(lambda: ("80.80.1.0/24", vrf.oid) in asic_routes(raw) and ("10.1.0.0/31", vrf.oid) in asic_routes(raw))
    assert vrf.refs == 3  # the RIF and two routes
    routes.delete("Vrf_red:80.80.1.0/24")
    routes.delete("Vrf_red:10.1.0.0/31")
    agent.drive(lambda: vrf.refs == 1)


def test_thousands_of_routes_in_bulk_share_groups_and_all_succeed(orchagent, dbs, raw):
    """Full pops (1024 keys) are answered with the next pop ("in flight"), the last one at once."""
    agent, _ = l3_agent(orchagent, dbs)
    three_peers(agent, dbs)
    sets = [ecmp(["10.0.0.1", "10.0.0.3"]), ecmp(["10.0.0.3", "10.0.0.5"]),
            {"nexthop": "10.0.0.5", "ifname": "Ethernet8"}]
    rows = [(f"20.{i >> 8}.{i & 255}.0/24", sets[i % 3]) for i in range(2500)]
    asic = raw(1)

    def routes_in_asic():
        return int(asic.hget("NOS_SYNCD_OBJECT_COUNTS", "SAI_OBJECT_TYPE_ROUTE_ENTRY") or 0)

    baseline = routes_in_asic()
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
    for start in range(0, len(rows), 128):
        producer.set_many(rows[start:start + 128])
    producer.flush()
    consumer = next(c for c in agent.runner.consumers if c.table == "ROUTE_TABLE")
    agent.drive(lambda: routes_in_asic() == baseline + 2500 and not consumer.pending, timeout=30)
    assert consumer.stats.rejected == 0
    assert len(asic_objects(raw, "NEXT_HOP_GROUP")) == 2
    single = sum(1 for i in range(2500) if i % 3 == 2)
    assert agent.deps.l3.next_hops[("10.0.0.5", "Ethernet8")].refs == single + 1  # its routes and one group
    producer.delete_many([key for key, _ in rows])
    producer.flush()
    agent.drive(lambda: routes_in_asic() == baseline and not consumer.pending, timeout=30)
    assert asic_objects(raw, "NEXT_HOP_GROUP") == {}
    assert all(nh.refs == 0 for nh in agent.deps.l3.next_hops.values())


def test_a_route_changed_while_its_answer_is_in_flight_ends_as_last_written(orchagent, dbs, raw):
    """Two pops stay in flight; a later pop that changes or deletes one of their routes is planned from
    the committed state (not a second create), and next-hop references stay exact."""
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs)
    first, second = {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}, ecmp(["10.0.0.3", "10.0.0.5"])
    rows = [(f"30.{i >> 8}.{i & 255}.0/24", first) for i in range(3000)]
    producer = ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE", buffered=True)
    producer.set_many(rows)
    producer.flush()
    route_orch = next(o for o in agent.orchs.values() if type(o).__name__ == "RouteOrch")
    agent.drive(lambda: len(route_orch.flight_tasks) >= POP_BATCH)  # a full pop sent, not settled
    in_flight = sorted(route_orch.flight_tasks)[:POP_BATCH]
    changed, deleted = in_flight[:200], in_flight[200:]
    producer.set_many([(key, second) for key in changed])
    producer.delete_many(deleted)
    producer.flush()
    consumer = next(c for c in agent.runner.consumers if c.table == "ROUTE_TABLE")
    # done: nothing pending, nothing sent and unanswered, no popped batch unread (prefetch)
    agent.drive(lambda: not consumer.pending and not route_orch.flight and not consumer.has_work(), timeout=30)
    assert consumer.stats.rejected == 0
    installed = {dest: attrs for (dest, _), attrs in asic_routes(raw).items() if dest.startswith("30.")}
    assert len(installed) == 3000 - len(deleted)
    [group] = asic_objects(raw, "NEXT_HOP_GROUP")
    assert all(installed[key][NH] == group for key in changed)
    assert all(key not in installed for key in deleted)
    direct = 3000 - len(changed) - len(deleted)
    assert sum(attrs[NH] == nhs["10.0.0.1"] for attrs in installed.values()) == direct
    assert agent.deps.l3.next_hops[("10.0.0.1", "Ethernet0")].refs == direct


def test_fallback_to_default_route_when_every_member_is_down(orchagent, dbs, raw):  # NOS-L3-033
    # test_nhg.py test_route_fallback_to_default_bothv4v6 (IPv4 half); routeorch is_default_route_nh_swap
    agent, _ = l3_agent(orchagent, dbs, 6)
    nhs = three_peers(agent, dbs, n=6)
    members = lambda: asic_objects(raw, "NEXT_HOP_GROUP_MEMBER").values()  # noqa: E731
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("3.3.3.0/24", {**ecmp(["10.0.0.1", "10.0.0.3", "10.0.0.5"]), "fallback_to_default_route": "true"})
    routes.set("0.0.0.0/0", ecmp(["10.0.0.7", "10.0.0.9", "10.0.0.11"]))
    agent.drive(lambda: len(members()) == 6)
    group = route(raw, agent, "3.3.3.0/24")["SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID"]
    for i in range(3):
        agent.deps.registry.get(f"Ethernet{4 * i}").oper_up = False
        agent.deps.bus.publish(OperChanged(f"Ethernet{4 * i}", False))
    agent.settle()
    mine = [m for m in members() if m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID"] == group]
    assert sorted(m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"] for m in mine) == \
        sorted(nhs[ip] for ip in ("10.0.0.7", "10.0.0.9", "10.0.0.11"))
    assert all(len(m) == 2 for m in mine)  # GROUP_ID and NEXT_HOP_ID only
    agent.deps.registry.get("Ethernet0").oper_up = True
    agent.deps.bus.publish(OperChanged("Ethernet0", True))  # swapped: stays on the default's next hops
    agent.settle()
    assert len(members()) == 6
    routes.delete("3.3.3.0/24")
    agent.drive(lambda: len(members()) == 3)
    routes.delete("0.0.0.0/0")
    agent.drive(lambda: len(members()) == 0)
    assert all(nh.refs == 0 for nh in agent.deps.l3.next_hops.values())
