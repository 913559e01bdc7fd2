"""ConfigDBConnector: NULL rows, @ list fields, set vs mod, atomic multi-row apply."""

from __future__ import annotations

import threading

import pytest

from nos.db import ConfigDBConnector, RowChange, Select, SubscriberStateTable
from nos.db.configdb import READ_ATTEMPTS, ConfigConflict, raw_to_typed, typed_to_raw
from nos.schema.tables import CONFIG_DB_GENERATION_KEY
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def test_typed_raw_rules():
    assert typed_to_raw({}) == {"NULL": "NULL"}
    assert typed_to_raw({"dhcp_servers": ["1.1.1.1", "2.2.2.2"], "vlanid": "100"}) == {
        "dhcp_servers@": "1.1.1.1,2.2.2.2", "vlanid": "100"}
    assert raw_to_typed({"NULL": "NULL"}) == {}
    assert raw_to_typed({"members@": "Ethernet0,Ethernet4"}) == {"members": ["Ethernet0", "Ethernet4"]}


def test_empty_row_is_stored_as_null_placeholder(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("PORTCHANNEL_MEMBER", ("PortChannel1", "Ethernet0"), {})
    assert raw(4).hgetall("PORTCHANNEL_MEMBER|PortChannel1|Ethernet0") == {"NULL": "NULL"}
    assert cdb.get_entry("PORTCHANNEL_MEMBER", "PortChannel1|Ethernet0") == {}
    assert cdb.get_keys("PORTCHANNEL_MEMBER") == ["PortChannel1|Ethernet0"]


def test_set_entry_replaces_mod_entry_merges(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("VLAN", "Vlan100", {"vlanid": "100", "mtu": "9100", "dhcp_servers": ["1.1.1.1"]})
    cdb.mod_entry("VLAN", "Vlan100", {"admin_status": "up"})
    assert raw(4).hgetall("VLAN|Vlan100") == {
        "vlanid": "100", "mtu": "9100", "dhcp_servers@": "1.1.1.1", "admin_status": "up"}
    cdb.set_entry("VLAN", "Vlan100", {"vlanid": "100"})
    assert raw(4).hgetall("VLAN|Vlan100") == {"vlanid": "100"}
    cdb.set_entry("VLAN", "Vlan100", None)
    assert not raw(4).exists("VLAN|Vlan100")


def test_replace_is_seen_as_one_full_row_set_not_delete(dbs):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("PORT", "Ethernet0", {"speed": "400000", "mtu": "9100", "fec": "rs"})
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    sub.pops()
    select = Select()
    select.add(sub)
    cdb.set_entry("PORT", "Ethernet0", {"speed": "100000", "mtu": "9100"})
    got = []
    wait_until(lambda: (select.select(0.1) and got.extend(sub.pops())) or got)
    assert all(p.op == "SET" for p in got)
    assert got[-1].fields == {"speed": "100000", "mtu": "9100"}


def test_mod_config_and_get_config_round_trip(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    config = {
        "PORT": {"Ethernet0": {"speed": "400000"}, "Ethernet4": {"speed": "400000"}},
        "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}},
    }
    cdb.mod_config(config)
    cdb.set_initialized()
    assert cdb.get_config() == config
    assert raw(4).get("CONFIG_DB_INITIALIZED") == "1"
    cdb.mod_config({"PORT": None, "VLAN_MEMBER": {}})
    assert "PORT" not in cdb.get_config()
    assert cdb.get_config()["VLAN_MEMBER"] == config["VLAN_MEMBER"]


def test_apply_is_atomic_for_readers(dbs, raw):
    """Many rows in one script: a reader on another connection sees none or all of them."""
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    reader = raw(4)
    seen: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(len(reader.keys("QUEUE|*")))

    thread = threading.Thread(target=watch)
    thread.start()
    try:
        wait_until(lambda: len(seen) > 3)
        changes = [RowChange("QUEUE", f"Ethernet{4 * i}|3", "replace", {"scheduler": "scheduler.1"})
                   for i in range(2000)]
        assert cdb.apply(changes) == 2000
        wait_until(lambda: seen[-1] == 2000)
    finally:
        stop.set()
        thread.join()
    assert set(seen) <= {0, 2000}


def test_get_config_never_sees_half_of_an_apply(dbs):
    """A writer swaps between two whole configurations (each swap one apply) while get_config reads:
    every read is one of the two, never a mix or a row emptied between its KEYS and its HGETALL."""
    writer, reader = ConfigDBConnector(dbs["CONFIG_DB"]), ConfigDBConnector(dbs["CONFIG_DB"])
    profile = {"pool": "ingress_lossless_pool", "size": "0", "xon": "18432", "xoff": "165888"}
    with_rows = {"BUFFER_PROFILE": {f"p{i}": dict(profile) for i in range(40)}, "VLAN": {"Vlan7": {"vlanid": "7"}}}
    without = {"VLAN": {"Vlan8": {"vlanid": "8"}}}
    states = [with_rows, without]
    writer.mod_config(with_rows)
    stop = threading.Event()

    def swap() -> None:
        i = 0
        while not stop.is_set():
            now, then = states[i % 2], states[(i + 1) % 2]
            writer.apply([RowChange(t, k, "delete") for t, rows in now.items() for k in rows]
                         + [RowChange(t, k, "replace", row) for t, rows in then.items() for k, row in rows.items()])
            i += 1
            stop.wait(0.002)  # room for a read between two applies

    thread = threading.Thread(target=swap, daemon=True)
    thread.start()
    try:
        seen = [reader.get_config() for _ in range(150)]
    finally:
        stop.set()
        thread.join(5)
    assert all(config in states for config in seen)


def test_a_read_that_never_finds_a_quiet_moment_gives_up_with_a_conflict(dbs, monkeypatch):
    """Every one of the READ_ATTEMPTS reads has an apply in between (simulated by a generation that
    moves on every read): the reader gets ConfigConflict saying so, not an endless loop."""
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("VLAN", "Vlan7", {"vlanid": "7"})
    client = dbs["CONFIG_DB"].client
    bumps = iter(range(1, 10_000))
    real_pipeline = client.pipeline

    def pipeline(*args, **kwargs):
        pipe = real_pipeline(*args, **kwargs)
        real_get = pipe.get

        def get(name):
            if name == CONFIG_DB_GENERATION_KEY:
                client.set(CONFIG_DB_GENERATION_KEY, next(bumps))
            return real_get(name)

        pipe.get = get
        return pipe

    monkeypatch.setattr(client, "pipeline", pipeline)
    with pytest.raises(ConfigConflict, match=f"gave up after {READ_ATTEMPTS} reads"):
        cdb.get_config()


def test_table_names_are_used_exactly_as_given(dbs, raw):
    """``port`` is a table of its own: no call reads or writes ``PORT`` for it (swss-common upper-cases)."""
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    cdb.set_entry("PORT", "Ethernet0", {"lanes": "0,1,2,3", "mtu": "9100"})
    cdb.set_entry("port", "Ethernet0", {"mtu": "1500"})
    cdb.mod_entry("port", "Ethernet4", {"mtu": "1500"})
    cdb.mod_config({"Port": {"Ethernet8": {"mtu": "1500"}}})
    assert raw(4).hgetall("PORT|Ethernet0") == {"lanes": "0,1,2,3", "mtu": "9100"}
    assert raw(4).hgetall("port|Ethernet0") == {"mtu": "1500"} and raw(4).exists("Port|Ethernet8")
    assert cdb.get_entry("port", "Ethernet0") == {"mtu": "1500"} and cdb.get_keys("PORT") == ["Ethernet0"]
    assert set(cdb.get_table("port")) == {"Ethernet0", "Ethernet4"}
    assert set(cdb.get_config()) == {"PORT", "port", "Port"}
    cdb.delete_table("port")
    cdb.mod_config({"Port": None})
    assert cdb.get_config() == {"PORT": {"Ethernet0": {"lanes": "0,1,2,3", "mtu": "9100"}}}


def test_a_table_name_holding_the_separator_is_refused_before_anything_is_written(dbs, raw):
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])
    with pytest.raises(ValueError, match="cannot contain '|'"):
        cdb.apply([RowChange("VLAN", "Vlan100", "replace", {"vlanid": "100"}),
                   RowChange("PORT|Ethernet0", "x", "replace", {"mtu": "1500"})])
    assert raw(4).keys("*") == []
