"""A run across a change (nos.lab.across), on plain data: the change's words, the ports it kills at once,
what a data plane whose tables still point at a dead port does, and the loss window from the looks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from fastpath.fabric import Fabric, find_hops, wire
from fastpath.fabric.topo import leaf_spine
from nos.lab import across
from nos.lab.across import Take, dead_ports, killed_switches, loss_window, parse_change, with_dead_ports
from nos.lab.model import Endpoint
from nos.lab.topology import load_topology

LABS = Path(__file__).resolve().parents[4] / "configs" / "labs"


@pytest.fixture(scope="module")
def topo():  # type: ignore[no-untyped-def]
    return load_topology(LABS / "mclag.yaml")


def test_the_changes_in_words(topo) -> None:  # type: ignore[no-untyped-def]
    shut = across.Change("shutdown", (Endpoint("leaf1", "Ethernet8"),))
    assert parse_change("shutdown leaf1:Ethernet8", topo) == shut
    link = parse_change("link down leaf2:Ethernet496 leaf1:Ethernet496", topo)
    assert link.kind == "link down"
    assert set(link.ends) == {Endpoint("leaf1", "Ethernet496"), Endpoint("leaf2", "Ethernet496")}
    assert parse_change("kill leaf1 iccpd", topo) == across.Change("kill", node="leaf1", daemon="iccpd")
    assert str(parse_change("kill spine1", topo)) == "kill spine1"


@pytest.mark.parametrize(("text", "named"), [
    ("", "empty change"),
    ("shutdown leaf9:Ethernet0", "no switch 'leaf9'"),
    ("shutdown leaf1", "not node:port"),
    ("link down leaf1:Ethernet0 spine1:Ethernet0", "no link leaf1:Ethernet0 -- spine1:Ethernet0"),
    ("kill leaf1 teamd", "no daemon 'teamd'"),
    ("kill", "not a change"),
    ("reboot leaf1", "not a change"),
])
def test_a_change_that_is_not_one_is_refused_naming_what(topo, text: str, named: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=named):
        parse_change(text, topo)


def test_what_loses_carrier_at_once(topo) -> None:  # type: ignore[no-untyped-def]
    def dead(*texts: str) -> dict[str, set[str]]:
        return dead_ports([parse_change(t, topo) for t in texts], topo)

    assert dead("shutdown leaf1:Ethernet8") == {"leaf1": {"Ethernet8"}}                  # a host's port
    assert dead("shutdown leaf1:Ethernet508") == {"leaf1": {"Ethernet508"}, "spine1": {"Ethernet0"}}  # and far end
    assert dead("link down leaf1:Ethernet496 leaf2:Ethernet496",
                "link down leaf1:Ethernet504 leaf2:Ethernet504") == {"leaf1": {"Ethernet496", "Ethernet504"},
                                                                   "leaf2": {"Ethernet496", "Ethernet504"}}
    assert dead("kill leaf1") == {"leaf2": {"Ethernet496", "Ethernet504"}, "spine1": {"Ethernet0"}}
    assert dead("kill leaf1 iccpd") == {}
    assert dead("startup leaf1:Ethernet8", "link up leaf1:Ethernet496 leaf2:Ethernet496") == {}
    assert killed_switches([parse_change("kill leaf1", topo), parse_change("kill leaf2 iccpd", topo)]) == {"leaf1"}


def _fabric() -> Fabric:
    return leaf_spine(2, 2, 4)


def test_flows_hashed_onto_a_dead_uplink_are_lost_until_the_tables_change() -> None:
    fabric = _fabric()
    n_hosts = len(fabric.hosts)
    src = np.repeat(np.arange(4), 64).astype(np.int64)               # leaf0's hosts to leaf1's, many flows
    dst = (4 + np.arange(len(src)) % 4).astype(np.int64)
    assert dst.max() < n_hosts
    dscp = np.full(len(src), 3, dtype=np.int32)
    l4 = (49152 + np.arange(len(src))).astype(np.int32)
    before = find_hops(fabric, wire(fabric), src, dst, dscp, l4)
    assert before.delivered.all()
    tables = dict(fabric.switches)
    [(up, down)] = [(li.a[1], li.b[1]) for li in fabric.links if (li.a[0], li.b[0]) == ("leaf0", "spine0")]
    cut = with_dead_ports(tables, {"leaf0": {up}, "spine0": {down}})   # the cable leaf0 -- spine0
    uplink = list(tables["leaf0"].ports.names).index(up)
    assert not cut["leaf0"].ports.oper_up[uplink]
    assert tables["leaf0"].ports.oper_up.all()                       # the original is not changed
    during = dataclasses.replace(fabric, switches=tuple(cut.items()))
    hops = find_hops(during, wire(during), src, dst, dscp, l4)
    over_spine0 = np.asarray([before.path(i)[0][2] == uplink for i in range(len(src))])
    assert 0.3 < over_spine0.mean() < 0.7                              # ECMP put about half there
    assert not hops.delivered[over_spine0].any() and hops.delivered[~over_spine0].all()
    assert {hops.status[i] for i in np.flatnonzero(over_spine0)} == {"egress_port_down"}


def test_the_loss_window_from_the_looks() -> None:
    assert loss_window([Take(0, 0, 0), Take(0.0, 0.2, 0)]) == across.LossWindow(0.0, 0.0, 0, 0, 2, True)
    w = loss_window([Take(0, 0, 11), Take(0.01, 0.3, 11), Take(0.3, 0.5, 0), Take(0.5, 0.7, 0)])
    assert (w.lower_s, w.upper_s, w.losing_takes, w.most_lost, w.restored) == (0.01, 0.5, 2, 11, True)
    late = loss_window([Take(0, 0, 0), Take(0, 0.2, 0), Take(0.2, 0.4, 3), Take(0.4, 0.6, 0)])   # lost later on
    assert (late.lower_s, late.upper_s) == (0.2, 0.6)
    silent = loss_window([Take(0, 0, 5), Take(0, 0.3, None), Take(0.3, 0.6, 0)])   # a switch did not answer once
    assert (silent.upper_s, silent.restored) == (0.6, True)
    never = loss_window([Take(0, 0, 5), Take(0, 0.3, 5)])
    assert never.restored is False and never.upper_s == 0.3


def test_lost_bytes_are_the_lost_flows_rate_over_the_window() -> None:
    size = np.array([1e6, 1e6, 2e6])
    start = np.array([0.0, 0.0, 0.0])
    finish = np.array([20e-6, 40e-6, np.nan])                          # 50 GB/s, 25 GB/s, never finished
    lost = np.array([True, False, True])
    assert across.lost_bytes(size, start, finish, lost, 0.1) == int(5e9 + 2e6)


def test_a_change_to_what_the_running_lab_has_not_got_is_named_before_anything_runs(topo) -> None:  # type: ignore[no-untyped-def]
    ports = {"leaf1": ("Ethernet0", "Ethernet8"), "spine1": ("Ethernet0",)}     # leaf2 is not running
    changes = [parse_change(t, topo) for t in ("shutdown leaf1:Ethernet8", "shutdown leaf1:Ethernet9",
                                                 "startup leaf2:Ethernet0", "kill leaf2 iccpd", "kill spine1")]
    assert across.unknown_targets(changes, ports) == [
        "--across shutdown leaf1:Ethernet9: leaf1 has no port 'Ethernet9'",
        "--across startup leaf2:Ethernet0: leaf2 is not running", "--across kill leaf2 iccpd: leaf2 is not running"]
