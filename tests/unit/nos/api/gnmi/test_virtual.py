"""Virtual COUNTERS_DB paths -> entries under given name maps (pure), and the sampling schedule."""

from __future__ import annotations

import pytest
from pygnmi.create_gnmi_path import gnmi_path_generator

from nos.api.gnmi.errors import InvalidArgument
from nos.api.gnmi.paths import GPath, addresses, from_proto
from nos.api.gnmi.subscribe import _next_tick, interval_s
from nos.api.gnmi.virtual import Maps, by_port, entries_for, virtual_of

QUEUES = {f"Ethernet{p}:{q}": f"oid:0x15{p:04x}{q:02x}" for p in (0, 4) for q in range(3)}
PGS = {"Ethernet0:3": "oid:0x1a03"}
MAPS = Maps(ports={"Ethernet0": "oid:0x100", "Ethernet4": "oid:0x104", "Ethernet16": "oid:0x116"},
            queues=QUEUES, pgs=PGS,
            aliases={"Ethernet0": "etp1", "Ethernet4": "etp2"}, names={"etp1": "Ethernet0", "etp2": "Ethernet4"},
            pfcwd={"Ethernet4": ["2"]}, version=1, port_queues=by_port(QUEUES), port_pgs=by_port(PGS))


def vpath(text: str):
    prefix = GPath(target="COUNTERS_DB")
    return virtual_of(addresses(prefix, [from_proto(gnmi_path_generator(text))], ("COUNTERS_DB",))[0])


def test_all_ports_keyed_by_alias_in_port_order():
    entries = entries_for(vpath("COUNTERS/Ethernet*"), MAPS)
    assert [(e.hash, e.label) for e in entries] == [
        ("COUNTERS:oid:0x100", ("etp1",)), ("COUNTERS:oid:0x104", ("etp2",)), ("COUNTERS:oid:0x116", ("Ethernet16",))]
    assert [e.path[-1].name for e in entries] == ["etp1", "etp2", "Ethernet16"]  # the wildcard element replaced


def test_one_port_by_name_or_alias_is_the_value_itself():
    by_name = entries_for(vpath("COUNTERS/Ethernet4/SAI_PORT_STAT_PFC_3_RX_PKTS"), MAPS)
    by_alias = entries_for(vpath("COUNTERS/etp2/SAI_PORT_STAT_PFC_3_RX_PKTS"), MAPS)
    assert [(e.hash, e.field, e.label) for e in by_name + by_alias] == [
        ("COUNTERS:oid:0x104", "SAI_PORT_STAT_PFC_3_RX_PKTS", ())] * 2
    assert entries_for(vpath("COUNTERS/Ethernet99"), MAPS) == []


def test_queues_pfcwd_and_priority_groups():
    queues = entries_for(vpath("COUNTERS/Ethernet4/Queues"), MAPS)
    assert [e.label for e in queues] == [("Ethernet4:0",), ("Ethernet4:1",), ("Ethernet4:2",)]
    assert [e.hash for e in entries_for(vpath("COUNTERS/Ethernet*/Pfcwd"), MAPS)] == ["COUNTERS:oid:0x15000402"]
    pgs = entries_for(vpath("PERIODIC_WATERMARKS/Ethernet*/PriorityGroups"), MAPS)
    assert [(e.hash, e.label) for e in pgs] == [("PERIODIC_WATERMARKS:oid:0x1a03", ("etp1:3",))]


def test_sample_intervals_have_a_one_second_floor():
    assert interval_s(0, "sample_interval", "/p") == 0
    assert interval_s(2_000_000_000, "sample_interval", "/p") == 2.0
    with pytest.raises(InvalidArgument, match="below"):
        interval_s(999_999_999, "sample_interval", "/p")


def test_ticks_keep_their_phase_and_skip_what_was_missed():
    assert _next_tick(10.0, 1.0, 10.2) == 11.0
    assert _next_tick(10.0, 1.0, 13.5) == 14.0
