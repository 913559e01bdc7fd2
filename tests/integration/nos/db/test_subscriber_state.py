"""SubscriberStateTable: keyspace-driven, full-row delivery, initial dump."""

from __future__ import annotations

from select import select as selectors_select

import pytest

from nos.db import KeyOpFieldsValues, Select, SubscriberStateTable, Table
from tests.conftest import wait_until

pytestmark = pytest.mark.integration


def drain(sub: SubscriberStateTable, select: Select, want: int, timeout: float = 3.0):
    got = []

    def step():
        if select.select(timeout=0.1):
            got.extend(sub.pops())
        return len(got) >= want

    wait_until(step, timeout)
    return got


def test_initial_dump_queues_existing_rows_as_set(dbs):
    cfg = Table(dbs["CONFIG_DB"], "PORT")
    cfg.set("Ethernet0", {"speed": "400000"})
    cfg.set("Ethernet4", {"speed": "100000"})
    Table(dbs["CONFIG_DB"], "PORTCHANNEL").set("PortChannel1", {"mtu": "9100"})  # other table

    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")

    assert sub.has_work()
    assert sorted(sub.pops(), key=lambda k: k.key) == [
        KeyOpFieldsValues.set("Ethernet0", {"speed": "400000"}),
        KeyOpFieldsValues.set("Ethernet4", {"speed": "100000"}),
    ]


def test_one_field_change_delivers_the_whole_row(dbs, raw):
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    select = Select()
    select.add(sub)
    raw(4).hset("PORT|Ethernet0", mapping={"speed": "400000", "mtu": "9100"})
    assert drain(sub, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"speed": "400000", "mtu": "9100"})]
    raw(4).hset("PORT|Ethernet0", "mtu", "1500")
    assert drain(sub, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"speed": "400000", "mtu": "1500"})]


def test_delete_event_gives_del_and_prefix_tables_are_not_mixed(dbs, raw):
    cfg = raw(4)
    cfg.hset("VLAN|Vlan100", "vlanid", "100")
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    sub.pops()
    select = Select()
    select.add(sub)
    cfg.hset("VLAN_MEMBER|Vlan100|Ethernet0", "tagging_mode", "untagged")  # must not match VLAN|*
    cfg.delete("VLAN|Vlan100")
    assert drain(sub, select, 1) == [KeyOpFieldsValues.delete("Vlan100")]
    assert select.select(timeout=0.2) == []


def test_delete_then_recreate_before_pop_gives_del_then_set(dbs, raw):
    cfg = raw(4)
    cfg.hset("VRF|Vrf1", "vni", "100")
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "VRF")
    sub.pops()
    pipe = cfg.pipeline(transaction=True)
    pipe.delete("VRF|Vrf1")
    pipe.hset("VRF|Vrf1", "vni", "200")
    pipe.execute()
    wait_until(lambda: (sub.read_messages(), sub.has_work())[1])
    assert sub.pops() == [KeyOpFieldsValues.delete("Vrf1"), KeyOpFieldsValues.set("Vrf1", {"vni": "200"})]


def test_state_db_keys_with_separator_inside(dbs, raw):
    """STATE_DB FDB_TABLE keys contain ':' after the '|' separator; the key is split at the first '|'."""
    sub = SubscriberStateTable(dbs["STATE_DB"], "FDB_TABLE")
    select = Select()
    select.add(sub)
    raw(6).hset("FDB_TABLE|Vlan3:52:54:00:25:06:e9", mapping={"port": "Ethernet0", "type": "dynamic"})
    got = drain(sub, select, 1)
    assert got[0].key == "Vlan3:52:54:00:25:06:e9"


def test_many_events_for_one_key_coalesce(dbs, raw):
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    pipe = raw(4).pipeline(transaction=True)
    for i in range(50):
        pipe.hset("PORT|Ethernet0", "mtu", str(9000 + i))
    pipe.execute()
    raw(4).hset("PORT|Ethernet4", "mtu", "1500")  # marker: its event arrives after the 50 others
    wait_until(lambda: (sub.read_messages(), "Ethernet4" in sub._pending)[1])
    assert sub.pops() == [
        KeyOpFieldsValues.set("Ethernet0", {"mtu": "9049"}),
        KeyOpFieldsValues.set("Ethernet4", {"mtu": "1500"}),
    ]


def test_a_reader_receives_only_its_own_tables_events(dbs, raw):
    """orchagent reads one small APPL_DB table this way while routes stream into APPL_DB: the other
    tables' events must not even reach the process (the socket stays quiet), as with swss-common's
    per-table patterns."""
    sub = SubscriberStateTable(dbs["APPL_DB"], "PFC_WD_TABLE")
    select = Select()
    select.add(sub)
    appl = raw(0)
    pipe = appl.pipeline(transaction=False)
    for i in range(200):
        pipe.hset(f"ROUTE_TABLE:10.{i}.0.0/24", "nexthop", "10.0.0.1")
    pipe.execute()
    appl.ping()  # every route event has been published by now
    readable, _, _ = selectors_select([sub.fileno()], [], [], 0.3)
    assert readable == []  # no route event reached the process
    appl.hset("PFC_WD_TABLE:Ethernet0:3", "storm", "1")
    [event] = drain(sub, select, 1)
    assert event.key == "Ethernet0:3"


def test_config_db_readers_share_one_pattern_and_keep_to_their_tables(dbs, raw):
    """CONFIG_DB changes only when someone configures the switch: its readers in one process hold one
    pattern for the whole DB (Redis matches every write of every DB against every pattern), and each
    reader still gets only its own table's rows."""
    before = raw(0).execute_command("PUBSUB", "NUMPAT")
    port = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    vlan = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    queue = SubscriberStateTable(dbs["CONFIG_DB"], "QUEUE")
    assert raw(0).execute_command("PUBSUB", "NUMPAT") == before + 1
    SubscriberStateTable(dbs["APPL_DB"], "PORT_TABLE")
    SubscriberStateTable(dbs["APPL_DB"], "VLAN_TABLE")
    assert raw(0).execute_command("PUBSUB", "NUMPAT") == before + 3  # APPL_DB: one a table
    select = Select()
    for sub in (port, vlan, queue):
        select.add(sub)
    raw(4).hset("VLAN|Vlan100", "vlanid", "100")
    raw(4).hset("BUFFER_POOL|ingress", "size", "1000")  # read by nobody here
    raw(4).hset("PORT|Ethernet0", "mtu", "9100")

    def both() -> bool:
        select.select(timeout=0.1)
        return vlan.has_work() and port.has_work()

    wait_until(both, 3.0)
    assert vlan.pops() == [KeyOpFieldsValues.set("Vlan100", {"vlanid": "100"})]
    assert port.pops() == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    assert not queue.has_work() and queue.pops() == []


def test_readers_of_one_table_in_a_process_read_a_change_once(dbs, raw, monkeypatch):
    """Two readers of PORT (the port and buffer managers in cfgmgrd): a change is read once for both;
    a later change is read again, and a reader of another table reads its own rows."""
    import redis

    reads: list[int] = []
    execute = redis.client.Pipeline.execute

    def counted(self, *args, **kwargs):
        reads.append(len(self.command_stack))
        return execute(self, *args, **kwargs)

    first, second = SubscriberStateTable(dbs["CONFIG_DB"], "PORT"), SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    other = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    select = Select()
    for sub in (first, second, other):
        select.add(sub)
    monkeypatch.setattr(redis.client.Pipeline, "execute", counted)
    for mtu in ("9100", "1500"):
        raw(4).hset("PORT|Ethernet0", mapping={"speed": "400000", "mtu": mtu})
        want = [KeyOpFieldsValues.set("Ethernet0", {"speed": "400000", "mtu": mtu})]
        assert drain(first, select, 1) == want
        assert drain(second, select, 1) == want
    assert reads == [1, 1]  # one HGETALL per change, for both readers
    raw(4).hset("VLAN|Vlan5", "vlanid", "5")
    assert drain(other, select, 1) == [KeyOpFieldsValues.set("Vlan5", {"vlanid": "5"})]
    assert reads == [1, 1, 1]


def test_a_change_after_one_reader_read_is_read_again_for_the_other(dbs, raw):
    first, second = SubscriberStateTable(dbs["CONFIG_DB"], "PORT"), SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    select = Select()
    select.add(first)
    select.add(second)
    raw(4).hset("PORT|Ethernet0", "mtu", "9100")
    assert drain(first, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    raw(4).hset("PORT|Ethernet0", "mtu", "1500")
    wait_until(lambda: (first.read_messages(), first.has_work())[1])  # the second event drained
    got = second.pops()  # pending since the first event: the row is read again, with the new mtu
    assert got == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "1500"})]
