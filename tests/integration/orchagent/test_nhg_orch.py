"""NhgOrch on real Redis and syncd_sim: singleton and multi-path groups, recursive groups (depth 1),
routes naming a group, deletion while used."""

from __future__ import annotations

import pytest

from tests.integration.orchagent.test_intf_orch import appl, asic_objects, asic_routes, l3_agent
from tests.integration.orchagent.test_route_orch import three_peers

pytestmark = pytest.mark.integration


def counts(raw):
    return len(asic_objects(raw, "NEXT_HOP_GROUP")), len(asic_objects(raw, "NEXT_HOP_GROUP_MEMBER"))


def test_recursive_groups_track_their_singleton_members(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    nhs = three_peers(agent, dbs)
    groups = appl(dbs, "NEXTHOP_GROUP_TABLE")
    groups.set("grp1", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})
    groups.set("rec_grp1", {"nexthop_group": "grp1,grp2"})
    agent.drive(lambda: counts(raw) == (1, 1))
    assert agent.deps.l3.named_groups["grp1"].oid == nhs["10.0.0.1"]  # a singleton is its next hop
    groups.set("grp2", {"nexthop": "10.0.0.3", "ifname": "Ethernet4"})
    agent.drive(lambda: counts(raw) == (1, 2))
    groups.set("rec_grp1", {"nexthop_group": "grp1,grp2,grp3"})
    agent.settle()
    assert counts(raw) == (1, 2)
    groups.set("grp3", {"nexthop": "10.0.0.5", "ifname": "Ethernet8"})
    agent.drive(lambda: counts(raw) == (1, 3))
    rec = agent.deps.l3.named_groups["rec_grp1"].oid
    members = asic_objects(raw, "NEXT_HOP_GROUP_MEMBER").values()
    assert {m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_ID"] for m in members} == set(nhs.values())
    assert {m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_NEXT_HOP_GROUP_ID"] for m in members} == {rec}
    groups.set("rec_grp2", {"nexthop_group": "rec_grp1"})  # nesting depth 1 only: invalid
    consumer = next(c for c in agent.runner.consumers if c.table == "NEXTHOP_GROUP_TABLE")
    agent.drive(lambda: consumer.stats.rejected >= 1)
    assert counts(raw) == (1, 3)
    for index in ("rec_grp1", "grp1", "grp2", "grp3"):
        groups.delete(index)
    agent.drive(lambda: not agent.deps.l3.named_groups)
    assert counts(raw) == (0, 0)
    assert all(nh.refs == 0 for nh in agent.deps.l3.next_hops.values())


def test_routes_use_named_groups_and_deletion_waits(orchagent, dbs, raw):
    agent, _ = l3_agent(orchagent, dbs)
    three_peers(agent, dbs)
    groups = appl(dbs, "NEXTHOP_GROUP_TABLE")
    groups.set("ecmp", {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4", "weight": "5,7"})
    routes = appl(dbs, "ROUTE_TABLE")
    routes.set("9.9.9.0/24", {"nexthop_group": "ecmp"})
    vr = agent.deps.switch.default_vr
    agent.drive(lambda: ("9.9.9.0/24", vr) in asic_routes(raw))
    group = agent.deps.l3.named_groups["ecmp"].oid
    assert asic_routes(raw)[("9.9.9.0/24", vr)] == {"SAI_ROUTE_ENTRY_ATTR_NEXT_HOP_ID": group}
    assert asic_objects(raw, "NEXT_HOP_GROUP")[group] == {
        "SAI_NEXT_HOP_GROUP_ATTR_TYPE": "SAI_NEXT_HOP_GROUP_TYPE_DYNAMIC_UNORDERED_ECMP"}
    members = asic_objects(raw, "NEXT_HOP_GROUP_MEMBER").values()
    weights = sorted(m["SAI_NEXT_HOP_GROUP_MEMBER_ATTR_WEIGHT"] for m in members)
    assert weights == ["5", "7"]
    groups.set("ecmp", {"nexthop": "10.0.0.1,10.0.0.3,10.0.0.5", "ifname": "Ethernet0,Ethernet4,Ethernet8"})
    agent.drive(lambda: counts(raw) == (1, 3))
    assert agent.deps.l3.named_groups["ecmp"].oid == group  # updated in place
    groups.delete("ecmp")
    agent.settle()
    assert group in asic_objects(raw, "NEXT_HOP_GROUP")
    routes.delete("9.9.9.0/24")
    agent.drive(lambda: counts(raw) == (0, 0))


def test_a_new_group_waits_until_every_next_hop_is_resolved(orchagent, dbs, raw):  # NOS-L3-024
    # nhgorch drops a new group whose member sync fails: no SAI group while one next hop is unresolved
    agent, _ = l3_agent(orchagent, dbs)
    three_peers(agent, dbs, n=2)
    groups = appl(dbs, "NEXTHOP_GROUP_TABLE")
    groups.set("group1", {"nexthop": "10.0.0.1,10.0.0.3,10.0.0.5", "ifname": "Ethernet0,Ethernet4,Ethernet8"})
    agent.settle()
    assert counts(raw) == (0, 0)
    assert ("10.0.0.5", "Ethernet8") in agent.deps.l3.resolve_requests
    groups.set("group1", {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4"})
    agent.drive(lambda: counts(raw) == (1, 2))
    groups.delete("group1")
    agent.drive(lambda: counts(raw) == (0, 0))
