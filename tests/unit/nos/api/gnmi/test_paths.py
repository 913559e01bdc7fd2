"""Path schemes -> addresses and selections (pure: no Redis)."""

from __future__ import annotations

import pytest
from pygnmi.create_gnmi_path import gnmi_path_generator

from nos.api.gnmi.errors import InvalidArgument, NotFound, Unimplemented
from nos.api.gnmi.paths import GPath, addresses, from_proto
from nos.api.gnmi.selection import DbScan, Probe, TableScan, select
from nos.api.gnmi.virtual import virtual_of

DBS = ("APPL_DB", "ASIC_DB", "COUNTERS_DB", "CONFIG_DB", "STATE_DB")


def path(text: str, origin: str = "", target: str = "") -> GPath:
    """The path as pygnmi builds it from a string (keys in brackets may hold '/')."""
    parsed = from_proto(gnmi_path_generator(text))
    return GPath(origin or parsed.origin, parsed.elems, target)


def one(prefix: GPath, p: GPath):
    return addresses(prefix, [p], DBS)[0]


def test_native_path_with_origin_on_the_path_or_the_prefix():
    a = one(GPath(), path("/CONFIG_DB/localhost/PORT/Ethernet0/mtu", "sonic-db"))
    b = one(GPath("sonic_db"), path("/CONFIG_DB/localhost/PORT/Ethernet0/mtu"))
    for found in (a, b):
        assert (found.scheme, found.db, found.table) == ("native", "CONFIG_DB", "PORT")
        assert found.parts == ("Ethernet0", "mtu")


def test_legacy_path_takes_the_db_from_the_prefix_target():
    found = one(GPath(target="COUNTERS_DB"), path("COUNTERS/Ethernet*"))
    assert (found.scheme, found.db, found.table, found.parts) == ("legacy", "COUNTERS_DB", "COUNTERS", ("Ethernet*",))


def test_a_native_path_without_origin_is_accepted_when_it_starts_with_db_and_localhost():
    assert one(GPath(), path("/STATE_DB/localhost/PORT_TABLE")).scheme == "native"


@pytest.mark.parametrize(("prefix", "paths", "error", "text"), [
    (GPath(), [path("/CONFIG_DB/localhost/PORT", "sonic-db"), path("/x", "openconfig")], Unimplemented, "conflict"),
    (GPath("openconfig"), [path("/interfaces")], Unimplemented, "not served"),
    (GPath(target="NO_DB"), [path("PORT")], NotFound, "unknown target"),
    (GPath(), [path("/PORT/Ethernet0")], InvalidArgument, "origin sonic-db"),
    (GPath(), [path("/NOPE_DB/localhost/PORT", "sonic-db")], NotFound, "unknown database"),
    (GPath(), [path("/CONFIG_DB/asic0/PORT", "sonic-db")], NotFound, "localhost"),
    (GPath(target="CONFIG_DB"), [path("A/B/C/D/E")], InvalidArgument, "too many"),
    (GPath(), [path("/CONFIG_DB/localhost/PORT", "sonic-db"), path("/STATE_DB/localhost/PORT_TABLE", "sonic-db")],
     Unimplemented, "target conflict"),
    (GPath(), [path("/CONFIG_DB/localhost/PORT[key=Ethernet0]/mtu/x", "sonic-db")], InvalidArgument, "only a field"),
])
def test_bad_paths_are_refused_with_the_reason(prefix, paths, error, text):
    with pytest.raises(error) as raised:
        addresses(prefix, paths, DBS)
    assert text in str(raised.value)


def test_selections_of_native_elements():
    full = lambda p: one(GPath(), path(p, "sonic-db"))  # noqa: E731
    assert isinstance(select(full("/CONFIG_DB/localhost"), "|"), DbScan)
    assert isinstance(select(full("/CONFIG_DB/localhost/PORT"), "|"), TableScan)
    assert select(full("/CONFIG_DB/localhost/PORT/Ethernet*"), "|").pattern == "Ethernet*"
    row = select(full("/CONFIG_DB/localhost/PORT/Ethernet0"), "|")
    assert isinstance(row, Probe) and row.candidates == (("PORT|Ethernet0", None), ("PORT", "Ethernet0"))
    two = select(full("/CONFIG_DB/localhost/VLAN_MEMBER/Vlan100/Ethernet0"), "|")
    assert two.candidates == (("VLAN_MEMBER|Vlan100|Ethernet0", None), ("VLAN_MEMBER|Vlan100", "Ethernet0"))
    keyed = select(full("/CONFIG_DB/localhost/INTERFACE[key=Ethernet0|10.0.0.0/31]/x"), "|")
    assert keyed.candidates == (("INTERFACE|Ethernet0|10.0.0.0/31", "x"),)


def test_virtual_counters_paths_are_recognised():
    legacy = lambda p: one(GPath(target="COUNTERS_DB"), path(p))  # noqa: E731
    assert virtual_of(legacy("COUNTERS/Ethernet*")).kind == "port"
    assert virtual_of(legacy("COUNTERS/Ethernet8/SAI_PORT_STAT_PFC_3_RX_PKTS")).field == "SAI_PORT_STAT_PFC_3_RX_PKTS"
    assert virtual_of(legacy("COUNTERS/Ethernet*/Queues")).kind == "queues"
    assert virtual_of(legacy("COUNTERS/Ethernet*/Pfcwd")).kind == "pfcwd"
    assert virtual_of(legacy("PERIODIC_WATERMARKS/Ethernet*/PriorityGroups")).kind == "pgs"
    assert virtual_of(legacy("COUNTERS/oid:0x1000000000002")) is None
    assert virtual_of(legacy("COUNTERS_PORT_NAME_MAP")) is None
    native = one(GPath(), path("/COUNTERS_DB/localhost/COUNTERS/Ethernet0", "sonic-db"))
    assert virtual_of(native).port_index == 3
