"""Bad data in Redis (wrong-type keys, keys and values that are not UTF-8, garbage in the APPL_DB
transport, malformed notifications): every reader of the db layer skips it, reports it and goes on."""

from __future__ import annotations

import pytest

from nos.db import (
    ConfigDBConnector,
    ConsumerStateTable,
    KeyOpFieldsValues,
    NotificationConsumer,
    ProducerStateTable,
    RowChange,
    Select,
    SubscriberStateTable,
    Table,
    TableKeys,
)
from nos.db.baddata import BadKey
from nos.db.errors import WrongTypeError
from nos.db.notification import MALFORMED_KEY
from nos.db.table import write_hashes
from tests.conftest import wait_until

pytestmark = pytest.mark.integration

ETH24_STRING = "WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash"


class Recorder:
    """A publisher that records what the readers report (the daemons' is StateDbReporter)."""

    def __init__(self) -> None:
        self.bad: dict[tuple[str, str, str], str] = {}

    def bad_key(self, bad: BadKey) -> None:
        self.bad[(bad.db, bad.table, bad.key)] = bad.reason

    def bad_key_cleared(self, db: str, table: str, key: str) -> None:
        self.bad.pop((db, table, key), None)


@pytest.fixture
def reports(dbs) -> Recorder:
    recorder = Recorder()
    dbs.bad_keys.publisher = recorder
    return recorder


def drain(source, select: Select, want: int, timeout: float = 3.0) -> list[KeyOpFieldsValues]:
    got: list[KeyOpFieldsValues] = []

    def step() -> bool:
        if select.select(timeout=0.05):
            got.extend(source.pops())
        return len(got) >= want

    wait_until(step, timeout)
    return got


# -- CONFIG_DB / STATE_DB readers -------------------------------------------------------------------

def test_initial_dump_skips_a_string_row_and_reports_it(dbs, raw, reports):
    config = raw(4)
    for port in ("Ethernet20", "Ethernet28"):
        config.hset(f"PORT|{port}", "speed", "400000")
    config.set("PORT|Ethernet24", "notahash")

    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    tasks = sub.pops()

    assert sorted(t.key for t in tasks) == ["Ethernet20", "Ethernet28"]
    assert reports.bad == {("CONFIG_DB", "PORT", "Ethernet24"): ETH24_STRING}


def test_a_row_turned_into_a_string_gives_no_task_and_fixing_it_clears_the_report(dbs, raw, reports):
    config = raw(4)
    config.hset("PORT|Ethernet24", "speed", "400000")
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "PORT")
    select = Select()
    select.add(sub)
    assert [t.key for t in sub.pops()] == ["Ethernet24"]

    config.delete("PORT|Ethernet24")  # a DEL then the garbage: the DEL is delivered, the string is not
    config.set("PORT|Ethernet24", "notahash")
    config.hset("PORT|Ethernet28", "speed", "100000")
    got = drain(sub, select, 2)
    assert got == [KeyOpFieldsValues.delete("Ethernet24"), KeyOpFieldsValues.set("Ethernet28", {"speed": "100000"})]
    wait_until(lambda: ("CONFIG_DB", "PORT", "Ethernet24") in reports.bad)

    config.delete("PORT|Ethernet24")
    config.hset("PORT|Ethernet24", "speed", "400000")
    assert KeyOpFieldsValues.set("Ethernet24", {"speed": "400000"}) in drain(sub, select, 1)
    assert reports.bad == {}


def test_each_wrong_type_in_one_pipeline_fails_nothing_else(dbs, raw, reports):
    config = raw(4)
    sub = SubscriberStateTable(dbs["CONFIG_DB"], "VLAN")
    select = Select()
    select.add(sub)
    config.set("VLAN|Vlan1", "x")
    config.rpush("VLAN|Vlan2", "a", "b")
    config.sadd("VLAN|Vlan3", "a")
    config.zadd("VLAN|Vlan4", {"a": 1})
    config.hset("VLAN|Vlan5", "vlanid", "5")

    assert drain(sub, select, 1) == [KeyOpFieldsValues.set("Vlan5", {"vlanid": "5"})]
    wait_until(lambda: len(reports.bad) == 4)
    assert reports.bad[("CONFIG_DB", "VLAN", "Vlan2")] == "WRONGTYPE: CONFIG_DB VLAN|Vlan2 is a list, expected a hash"
    assert reports.bad[("CONFIG_DB", "VLAN", "Vlan4")].endswith("is a sorted set, expected a hash")


def test_keys_and_values_that_are_not_utf8_are_read_not_raised(dbs, raw, reports):
    raw(6).hset(b"PORT_TABLE|Ethernet0", b"speed", b"\xff\xfe")  # a value: replaced characters, a row
    raw(6).hset(b"PORT_TABLE|\xff\xfe", b"state", b"ok")          # a key: cannot be read back

    rows = Table(dbs["STATE_DB"], "PORT_TABLE").get_all()
    sub = SubscriberStateTable(dbs["STATE_DB"], "PORT_TABLE")

    assert rows == {"Ethernet0": {"speed": "\ufffd\ufffd"}}
    assert [t.key for t in sub.pops()] == ["Ethernet0"]
    (where, reason), = reports.bad.items()
    assert where == ("STATE_DB", "PORT_TABLE", "\ufffd\ufffd") and reason.startswith("NOT UTF-8: ")


def test_table_reads_skip_and_report_a_wrong_type_and_read_raises(dbs, raw, reports):
    raw(4).set("DEVICE_METADATA|localhost", "garbage")
    table = Table(dbs["CONFIG_DB"], "DEVICE_METADATA")

    assert table.get("localhost") is None
    assert table.hget("localhost", "hwsku") is None
    assert table.get_all() == {}
    with pytest.raises(WrongTypeError, match="DEVICE_METADATA|localhost is a string, expected a hash"):
        table.read("localhost")
    assert list(reports.bad) == [("CONFIG_DB", "DEVICE_METADATA", "localhost")]

    raw(4).delete("DEVICE_METADATA|localhost")
    raw(4).hset("DEVICE_METADATA|localhost", "hwsku", "x")
    assert table.get("localhost") == {"hwsku": "x"}
    assert reports.bad == {}


def test_a_writer_replaces_a_wrong_type_key_of_its_own_rows(dbs, raw):
    raw(6).set("PORT_TABLE|Ethernet0", "garbage")
    raw(2).set("COUNTERS_PORT_NAME_MAP", "garbage")

    Table(dbs["STATE_DB"], "PORT_TABLE").set("Ethernet0", {"state": "ok"})
    write_hashes(dbs["COUNTERS_DB"], {"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1"},
                                      "COUNTERS_QUEUE_NAME_MAP": {"Ethernet0:0": "oid:0x2"}})

    assert raw(6).hgetall("PORT_TABLE|Ethernet0") == {"state": "ok"}
    assert raw(2).hgetall("COUNTERS_PORT_NAME_MAP") == {"Ethernet0": "oid:0x1"}
    assert raw(2).hgetall("COUNTERS_QUEUE_NAME_MAP") == {"Ethernet0:0": "oid:0x2"}


def test_table_keys_leave_out_keys_that_are_not_rows(dbs, raw):
    config = raw(4)
    config.hset("PORTCHANNEL_MEMBER|PortChannel1|Ethernet0", "NULL", "NULL")
    config.set("PORTCHANNEL_MEMBER|PortChannel1|Ethernet4", "x")
    keys = TableKeys(dbs["CONFIG_DB"], "PORTCHANNEL_MEMBER")
    hub = dbs["CONFIG_DB"].keyspace_hub()
    assert keys.keys == {"PortChannel1|Ethernet0"}

    config.set("PORTCHANNEL_MEMBER|PortChannel1|Ethernet0", "now a string")
    config.hset("PORTCHANNEL_MEMBER|PortChannel1|Ethernet8", "NULL", "NULL")

    def settled() -> bool:
        hub.drain()
        return keys.keys == {"PortChannel1|Ethernet8"}

    wait_until(settled)


# -- the APPL_DB transport ----------------------------------------------------------------------------

def consumer_of(dbs, table: str = "PORT_TABLE") -> tuple[ConsumerStateTable, Select]:
    consumer = ConsumerStateTable(dbs["APPL_DB"], table)
    select = Select()
    select.add(consumer)
    return consumer, select


def test_a_wrong_type_state_hash_drops_its_change_and_not_the_batch(dbs, raw, reports):
    producer = ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE")
    consumer, select = consumer_of(dbs)
    appl = raw(0)
    appl.set("_PORT_TABLE:Ethernet4", "garbage")
    appl.sadd("PORT_TABLE_KEY_SET", "Ethernet4")
    producer.set("Ethernet0", {"mtu": "9100"})

    assert drain(consumer, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    assert reports.bad[("APPL_DB", "PORT_TABLE", "Ethernet4")] == (
        "WRONGTYPE: APPL_DB _PORT_TABLE:Ethernet4 is a string, expected a hash: "
        "its pending change was unreadable and is dropped")
    assert not appl.exists("_PORT_TABLE:Ethernet4")  # gone, so the producer's next write works

    producer.set("Ethernet4", {"mtu": "1500"})
    assert drain(consumer, select, 1) == [KeyOpFieldsValues.set("Ethernet4", {"mtu": "1500"})]
    assert reports.bad == {}


def test_a_wrong_type_row_is_replaced_by_the_popped_fields(dbs, raw, reports):
    raw(0).rpush("PORT_TABLE:Ethernet0", "garbage")
    consumer, select = consumer_of(dbs)
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"mtu": "9100"})

    assert drain(consumer, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    assert raw(0).hgetall("PORT_TABLE:Ethernet0") == {"mtu": "9100"}
    assert reports.bad == {}  # the consumer owns the row: repaired, only logged


def test_a_key_set_that_is_not_a_set_is_reported_and_the_producer_repairs_it(dbs, raw, reports):
    appl = raw(0)
    appl.set("PORT_TABLE_KEY_SET", "garbage")
    consumer, select = consumer_of(dbs)  # its start counts the key set: no WRONGTYPE there either
    assert consumer.pops() == []
    assert reports.bad[("APPL_DB", "PORT_TABLE", "PORT_TABLE_KEY_SET")].startswith(
        "WRONGTYPE: APPL_DB PORT_TABLE_KEY_SET is a string, expected a set")

    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"mtu": "9100"})
    assert drain(consumer, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    assert reports.bad == {}


def test_a_delete_set_that_is_not_a_set_does_not_stop_the_sets(dbs, raw, reports):
    raw(0).hset("PORT_TABLE_DEL_SET", "x", "y")
    consumer, select = consumer_of(dbs)
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"mtu": "9100"})

    assert drain(consumer, select, 1) == [KeyOpFieldsValues.set("Ethernet0", {"mtu": "9100"})]
    assert ("APPL_DB", "PORT_TABLE", "PORT_TABLE_DEL_SET") in reports.bad
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").delete("Ethernet0")  # the producer replaces it
    assert drain(consumer, select, 1) == [KeyOpFieldsValues.delete("Ethernet0")]
    assert reports.bad == {}


def test_a_key_set_member_with_nothing_pending_is_no_delete(dbs, raw, reports):
    raw(0).hset("PORT_TABLE:Ethernet0", "mtu", "9100")
    raw(0).sadd("PORT_TABLE_KEY_SET", "Ethernet0")  # by hand: neither fields nor a delete pending
    consumer, _ = consumer_of(dbs)

    assert consumer.pops() == []
    assert raw(0).hgetall("PORT_TABLE:Ethernet0") == {"mtu": "9100"}
    assert "nothing pending" in reports.bad[("APPL_DB", "PORT_TABLE", "Ethernet0")]


def test_huge_and_binary_entries_pop_without_failing_the_script(dbs, raw):
    appl = raw(0)
    appl.hset("_ROUTE_TABLE:10.0.0.0/8", mapping={f"f{i}": "v" for i in range(20_000)})
    appl.hset(b"_ROUTE_TABLE:\xff\xfe", b"nexthop", b"\xc3(")
    appl.sadd("ROUTE_TABLE_KEY_SET", "10.0.0.0/8", b"\xff\xfe")
    consumer, _ = consumer_of(dbs, "ROUTE_TABLE")

    by_key = {t.key: t for t in consumer.pops()}

    assert len(by_key["10.0.0.0/8"].fvs) == 20_000 and appl.hlen("ROUTE_TABLE:10.0.0.0/8") == 20_000
    assert by_key["\ufffd\ufffd"].fields == {"nexthop": "\ufffd("}


def test_the_producer_replaces_a_wrong_type_state_hash(dbs, raw):
    raw(0).set("_PORT_TABLE:Ethernet0", "garbage")
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").set("Ethernet0", {"mtu": "9100"})
    assert raw(0).hgetall("_PORT_TABLE:Ethernet0") == {"mtu": "9100"}


# -- notifications ----------------------------------------------------------------------------------

@pytest.mark.parametrize("payload", [b"not json", b"[" * 100_000, b'{"a": 1}', b'["op"]', b'["op", 5]', b"\xff"])
def test_a_malformed_notification_is_dropped_and_reported_until_a_good_one(dbs, raw, reports, payload):
    consumer = NotificationConsumer(dbs["ASIC_DB"], "NOTIFICATIONS")
    raw(1).publish("NOTIFICATIONS", payload)
    raw(1).publish("NOTIFICATIONS", '["port_state_change","[]"]')

    notes = consumer.wait(2.0)
    assert [n.op for n in notes] == ["port_state_change"]
    assert reports.bad == {}  # reported, then cleared by the good message that followed
    raw(1).publish("NOTIFICATIONS", payload)
    wait_until(lambda: consumer.wait(0.05) == [] and ("ASIC_DB", "NOTIFICATIONS", MALFORMED_KEY) in reports.bad)


# -- ConfigDBConnector and the servers' cache --------------------------------------------------------

def test_read_config_names_the_keys_it_leaves_out(dbs, raw, reports):
    raw(4).hset("PORT|Ethernet20", "speed", "400000")
    raw(4).set("PORT|Ethernet24", "notahash")
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])

    read = cdb.read_config()

    assert read.config == {"PORT": {"Ethernet20": {"speed": "400000"}}} == cdb.get_config()
    assert [(b.table, b.key, b.reason) for b in read.unreadable] == [("PORT", "Ethernet24", ETH24_STRING)]
    assert ("CONFIG_DB", "PORT", "Ethernet24") in reports.bad


@pytest.mark.parametrize("mode", ["merge", "replace"])
def test_an_apply_of_the_row_replaces_a_wrong_type_key(dbs, raw, mode):
    raw(4).set("PORT|Ethernet24", "notahash")
    raw(4).hset("PORT|Ethernet20", "speed", "400000")
    cdb = ConfigDBConnector(dbs["CONFIG_DB"])

    cdb.apply([RowChange("PORT", "Ethernet24", mode, {"speed": "100000"}),
               RowChange("PORT", "Ethernet20", "merge", {"mtu": "1500"})])

    assert raw(4).hgetall("PORT|Ethernet24") == {"speed": "100000"}
    assert raw(4).hgetall("PORT|Ethernet20") == {"speed": "400000", "mtu": "1500"}


def test_the_cached_snapshot_leaves_out_and_reports_a_key_turned_into_a_string(dbs, raw, reports):
    raw(4).hset("PORT|Ethernet24", "speed", "400000")
    cdb = ConfigDBConnector(dbs["CONFIG_DB"], cached=True)
    assert cdb.snapshot()[0] == {"PORT": {"Ethernet24": {"speed": "400000"}}}

    raw(4).set("PORT|Ethernet24", "notahash")

    assert cdb.snapshot()[0] == {}
    assert reports.bad == {("CONFIG_DB", "PORT", "Ethernet24"): ETH24_STRING}
    cdb.close()
