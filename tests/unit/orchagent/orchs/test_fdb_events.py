"""FdbOrch's handling of syncd's fdb_event with plain data: parsing sairedis' serialisation, what a
LEARNED / MOVE records, and which entries a FLUSHED names."""

from __future__ import annotations

import json

from orchagent.orchs import fdb

SWITCH = "oid:0x21000000000000"
VLAN = "oid:0x26000000000005"
BP, BP2 = "oid:0x3a000000000040", "oid:0x3a000000000041"
KEY = '{"bvid":"oid:0x26000000000005","mac":"52:54:00:25:06:E9","switch_id":"oid:0x21000000000000"}'


def item(event: str, key: str = KEY, bridge_port: str = BP) -> dict[str, object]:
    return {"fdb_entry": key, "fdb_event": event,
            "list": [{"id": "SAI_FDB_ENTRY_ATTR_TYPE", "value": "SAI_FDB_ENTRY_TYPE_DYNAMIC"},
                     {"id": "SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID", "value": bridge_port}]}


def test_parse_a_learned_event():
    [notice] = fdb.parse_fdb_event(json.dumps([item(fdb.LEARNED)]))
    assert notice == fdb.FdbNotice(fdb.LEARNED, KEY, VLAN, "52:54:00:25:06:E9", BP)


def test_parse_normalises_the_mac_and_null_oids():
    key = json.dumps({"bvid": "oid:0x0", "mac": "52-54-00-25-06-e9", "switch_id": SWITCH})
    [notice] = fdb.parse_fdb_event(json.dumps([item(fdb.FLUSHED, key, "oid:0x0")]))
    assert (notice.bvid, notice.bridge_port, notice.mac) == ("", "", "52:54:00:25:06:E9")


def test_malformed_items_and_notifications_are_left_out():
    bad_mac = json.dumps({"bvid": VLAN, "mac": "nope", "switch_id": SWITCH})
    data = json.dumps([item(fdb.LEARNED, bad_mac), "x", {"fdb_entry": "{"}, item(fdb.AGED)])
    assert [n.event for n in fdb.parse_fdb_event(data)] == [fdb.AGED]
    assert fdb.parse_fdb_event("not json") == [] and fdb.parse_fdb_event('{"a": 1}') == []


def installed(mac: str, bridge_port: str = BP, type_: str = fdb.DYNAMIC, vlan: str = "Vlan2") -> fdb.Installed:
    return fdb.Installed(fdb.FdbEntry(vlan, int(vlan[4:]), mac, "Ethernet0", type_), KEY, bridge_port)


def test_learned_records_a_new_mac_and_ignores_a_known_one():
    notice = fdb.FdbNotice(fdb.LEARNED, KEY, VLAN, "52:54:00:25:06:E9", BP)
    recorded = fdb.plan_learnt(notice, "Vlan2", 2, "Ethernet0", None)
    assert recorded == fdb.Installed(fdb.FdbEntry("Vlan2", 2, "52:54:00:25:06:E9", "Ethernet0", fdb.DYNAMIC,
                                                  origin=fdb.LEARNT), KEY, BP)
    assert recorded.learnt
    assert fdb.plan_learnt(notice, "Vlan2", 2, "Ethernet0", installed("52:54:00:25:06:E9", BP2)) is None


def test_move_points_the_entry_at_the_new_port_unless_it_is_already_there():
    notice = fdb.FdbNotice(fdb.MOVE, KEY, VLAN, "52:54:00:25:06:E9", BP2)
    moved = fdb.plan_learnt(notice, "Vlan2", 2, "Ethernet4", installed("52:54:00:25:06:E9", BP))
    assert moved is not None and (moved.entry.port, moved.bridge_port, moved.learnt) == ("Ethernet4", BP2, True)
    assert fdb.plan_learnt(notice, "Vlan2", 2, "Ethernet4", installed("52:54:00:25:06:E9", BP2)) is None


def test_flushed_names_dynamic_entries_by_port_and_vlan():
    entries = [installed("00:00:00:00:00:01"), installed("00:00:00:00:00:02", BP2),
               installed("00:00:00:00:00:03", type_=fdb.STATIC), installed("00:00:00:00:00:04", vlan="Vlan3")]

    def macs(bvid: str, bridge_port: str, vlan: str = "Vlan2") -> list[str]:
        notice = fdb.FdbNotice(fdb.FLUSHED, "", bvid, "00:00:00:00:00:00", bridge_port)
        return [i.entry.mac for i in fdb.flushed(notice, entries, vlan if bvid else "")]

    assert macs("", "") == ["00:00:00:00:00:01", "00:00:00:00:00:02", "00:00:00:00:00:04"]
    assert macs("", BP) == ["00:00:00:00:00:01", "00:00:00:00:00:04"]
    assert macs(VLAN, BP) == ["00:00:00:00:00:01"]
    assert macs(VLAN, "") == ["00:00:00:00:00:01", "00:00:00:00:00:02"]


def test_an_fdb_event_nested_deeper_than_the_parser_goes_is_left_out() -> None:
    from orchagent.orchs.fdb import parse_fdb_event

    problems: list[str] = []
    assert parse_fdb_event("[" * 100_000, problems) == []
    assert parse_fdb_event('[{"fdb_entry": "' + "[" * 100_000 + '"}]', problems) == []
    assert len(problems) == 2
