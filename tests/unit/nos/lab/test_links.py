"""The link rule with plain data: which end is told what about the far end of its cable."""

from __future__ import annotations

from pathlib import Path

import pytest

from nos.lab.links import DOWN, UP, carriers, find_link, link_id
from nos.lab.model import Endpoint
from nos.lab.topology import Topology, load_topology

LABS = Path(__file__).resolve().parents[4] / "configs" / "labs"
L1, S1 = Endpoint("leaf1", "Ethernet248"), Endpoint("spine1", "Ethernet0")


@pytest.fixture(scope="module")
def topo() -> Topology:
    return load_topology(LABS / "leaf-spine.yaml")


def all_up(topo: Topology) -> dict[Endpoint, bool]:
    return {end: True for link in topo.links for end in (link.a, link.b)}


def test_every_cabled_port_has_light_when_every_far_end_is_up(topo: Topology) -> None:
    rows = carriers(topo, all_up(topo), frozenset())
    assert {rows[end].carrier for link in topo.links for end in (link.a, link.b)} == {UP}
    assert rows[L1].peer == "spine1:Ethernet0" and rows[S1].peer == "leaf1:Ethernet248"
    host = topo.hosts_on("leaf1")[0]
    assert rows[Endpoint("leaf1", host.port)].peer == f"host:{host.name}"


def test_a_far_end_admin_down_darkens_only_the_near_end(topo: Topology) -> None:
    admin = {**all_up(topo), S1: False}
    rows = carriers(topo, admin, frozenset())
    assert rows[L1].carrier == DOWN        # leaf1 sees no light from spine1's shut port
    assert rows[S1].carrier == UP          # spine1's own port still receives leaf1's light
    assert sum(r.carrier == DOWN for r in rows.values()) == 1


def test_a_switch_that_does_not_answer_darkens_every_link_to_it(topo: Topology) -> None:
    admin = {end: up for end, up in all_up(topo).items() if end.node != "spine2"}
    rows = carriers(topo, admin, frozenset())
    dark = sorted(str(end) for end, row in rows.items() if row.carrier == DOWN)
    assert dark == sorted(str(link.a if link.b.node == "spine2" else link.b)
                          for link in topo.links if "spine2" in (link.a.node, link.b.node))
    assert len(dark) == 4


def test_a_cut_link_is_dark_at_both_ends_whatever_the_admin_state(topo: Topology) -> None:
    cable = find_link(topo, str(S1), str(L1))
    rows = carriers(topo, all_up(topo), frozenset({link_id(cable)}))
    assert rows[L1].carrier == rows[S1].carrier == DOWN
    assert sum(r.carrier == DOWN for r in rows.values()) == 2


def test_links_are_named_the_same_from_either_end(topo: Topology) -> None:
    cable = find_link(topo, "leaf1:Ethernet248", "spine1:Ethernet0")
    assert link_id(cable) == "leaf1:Ethernet248--spine1:Ethernet0"
    assert find_link(topo, "spine1:Ethernet0", "leaf1:Ethernet248") == cable


@pytest.mark.parametrize(("a", "b", "message"), [
    ("leaf1:Ethernet0", "spine1:Ethernet0", "no link leaf1:Ethernet0 -- spine1:Ethernet0"),
    ("leaf9:Ethernet0", "spine1:Ethernet0", "leaf9:Ethernet0: no switch 'leaf9'"),
    ("leaf1", "spine1:Ethernet0", "'leaf1' is not node:port"),
])
def test_a_link_that_is_not_in_the_lab_is_named(topo: Topology, a: str, b: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_link(topo, a, b)
