"""``show mac`` (fdbshow from ASIC_DB), ``show runningconfiguration all``, ``list-checkpoints`` and the
refusal text of a transaction, with plain data."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from nos.cli.gcu import checkpoint_listing
from nos.cli.show.mac import check_filters, fdb_entries, fdb_text, select
from nos.cli.show.render import Snapshot
from nos.cli.show.runningconfig import running_config_text
from nos.cli.txn import error_lines
from nos.config.checkpoint import Checkpoint
from nos.config.errors import ConfigError, ConfigValidationError


def _fdb(mac: str, bvid: str) -> str:
    return json.dumps({"bvid": bvid, "mac": mac, "switch_id": "oid:0x21000000000000"}, separators=(",", ":"))


ASIC = Snapshot({
    ("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_FDB_ENTRY"): {
        _fdb("7C:FE:90:80:9F:05", "oid:0x26000000000010"): {
            "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": "oid:0x3a01"},
        _fdb("7C:FE:90:80:9F:01", "oid:0x26000000000011"): {
            "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_STATIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": "oid:0x3a02"},
        _fdb("7C:FE:90:80:9F:02", "oid:0x26000000000010"): {
            "SAI_FDB_ENTRY_ATTR_TYPE": "SAI_FDB_ENTRY_TYPE_DYNAMIC", "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": "oid:0x3aff"},
        "not json": {},
    },
    ("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_BRIDGE_PORT"): {
        "oid:0x3a01": {"SAI_BRIDGE_PORT_ATTR_PORT_ID": "oid:0x1000000000002"},
        "oid:0x3a02": {"SAI_BRIDGE_PORT_ATTR_PORT_ID": "oid:0x2000000000009"},
    },
    ("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_VLAN"): {
        "oid:0x26000000000010": {"SAI_VLAN_ATTR_VLAN_ID": "1000"},
        "oid:0x26000000000011": {"SAI_VLAN_ATTR_VLAN_ID": "200"},
    },
})
NAMES = {"oid:0x1000000000002": "Ethernet20", "oid:0x2000000000009": "PortChannel0001"}


def test_fdb_is_read_from_asic_db_as_fdbshow_does():
    # The entry whose bridge port is unknown is skipped; VLAN order, then ASIC order.
    entries = fdb_entries(ASIC, NAMES)
    assert fdb_text(entries) == """\
  No.    Vlan  MacAddress         Port             Type
-----  ------  -----------------  ---------------  -------
    1     200  7C:FE:90:80:9F:01  PortChannel0001  Static
    2    1000  7C:FE:90:80:9F:05  Ethernet20       Dynamic
Total number of entries 2"""
    assert fdb_text(select(entries, vlan="1000"), count_only=True) == "Total number of entries 1"
    assert [e.mac for e in select(entries, address="7c:fe:90:80:9f:01", kind="static")] == ["7C:FE:90:80:9F:01"]


def test_fdb_filters_are_checked():
    ports = {"Ethernet20": "oid:0x1000000000002"}
    assert check_filters("4096", None, None, None, ports) == "Invalid vlan id 4096"
    assert check_filters(None, "Ethernet99", None, None, ports) == "Invalid port Ethernet99"
    assert check_filters(None, None, "7C:FE", None, ports) == "Invalid mac address 7C:FE"
    assert check_filters(None, None, None, "sticky", ports) == "Invalid type sticky"
    assert check_filters("1000", "Ethernet20", "7c:fe:90:80:9f:01", "dynamic", ports) is None


def test_running_configuration_is_sonic_cfggen_print_data():
    text = running_config_text({"VLAN": {"Vlan1000": {"vlanid": "1000"}, "Vlan200": {"vlanid": "200"}},
                                "PORT": {"Ethernet8": {"speed": "1", "alias": "a"}, "Ethernet12": {}}})
    assert json.loads(text) == {"PORT": {"Ethernet8": {"alias": "a", "speed": "1"}, "Ethernet12": {}},
                                "VLAN": {"Vlan200": {"vlanid": "200"}, "Vlan1000": {"vlanid": "1000"}}}
    assert text.index('"Ethernet8"') < text.index('"Ethernet12"') < text.index('"VLAN"')
    assert text.index('"Vlan200"') < text.index('"Vlan1000"') and text.startswith('{\n    "PORT": {')


def test_checkpoints_are_listed_newest_first():
    found = [Checkpoint("a", Path("a"), datetime(2026, 1, 1, tzinfo=UTC)),
             Checkpoint("b", Path("b"), datetime(2026, 1, 2, tzinfo=UTC))]
    assert checkpoint_listing(found, False) == ["b", "a"]
    assert checkpoint_listing(found, True) == [{"name": "b", "time": "2026-01-02T00:00:00+00:00"},
                                               {"name": "a", "time": "2026-01-01T00:00:00+00:00"}]


def test_a_refusal_names_every_problem():
    exc = ConfigValidationError([ConfigError("PORT", "Ethernet0", "mtu", "99999", "must be 68..9216"),
                                 ConfigError("VLAN_MEMBER", "Vlan1|Ethernet9", None, None, "no such port")])
    assert error_lines(exc) == ["refused (2 problems):", "  PORT|Ethernet0: field 'mtu' = '99999': must be 68..9216",
                                "  VLAN_MEMBER|Vlan1|Ethernet9: no such port"]
