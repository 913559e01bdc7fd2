"""The counter writer with orchagent (PortOrch) and syncd_sim on real Redis: COUNTERS hashes for every
port, queue and PG; FLEX_COUNTER_TABLE enable/disable and intervals; the counter-set hook; watermark
tables; removal; bad requests reported while syncd keeps running; counters survive a syncd restart."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from nos.daemon.reporting import StateDbReporter
from nos.daemon.runner import Runner
from nos.db import NotificationProducer, ProducerStateTable, Table
from nos.db.connector import Databases
from orchagent.orchs.port import PortOrch
from syncd_sim import stats
from syncd_sim.syncd import Syncd
from tests.conftest import wait_until
from tests.integration.orchagent.conftest import Agent, boot_ports

pytestmark = pytest.mark.integration

FAST = "100"  # ms: every group polled at the YANG minimum, so tests wait little


class SyncdDaemon:
    """syncd_sim wired exactly as the daemon is (``Syncd.register`` on a strict Runner), stepped in a
    thread; an exception in the loop is kept and re-raised by ``close``."""

    def __init__(self, url: str) -> None:
        self.dbs = Databases(url)
        self.syncd = Syncd(self.dbs)
        self.runner = Runner("syncd", strict=True, reporter=StateDbReporter(self.dbs, "syncd"))
        self.syncd.register(self.runner)
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            while not self.stop.is_set():
                self.runner.step(max_wait=0.02)
        except BaseException as exc:  # noqa: BLE001 - handed to the test by close()
            self.error = exc

    def alive(self) -> bool:
        return self.thread.is_alive() and self.error is None

    def executed(self, table: str) -> int:
        return sum(c.stats.executed for c in self.runner.consumers if c.table == table)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.dbs.close()
        if self.error is not None:
            raise self.error


@pytest.fixture
def syncd(redis_url: str) -> Iterator[SyncdDaemon]:
    """Overrides the harness's plain syncd thread: this one runs the counter writer too."""
    daemon = SyncdDaemon(redis_url)
    yield daemon
    daemon.close()


def flex(dbs: Databases, group: str, **fields: str) -> None:
    Table(dbs["CONFIG_DB"], "FLEX_COUNTER_TABLE").set(group, fields)


def enable(dbs: Databases, *groups: str) -> None:
    for group in groups:
        flex(dbs, group, FLEX_COUNTER_STATUS="enable", POLL_INTERVAL=FAST)


def counter_set(dbs: Databases, op: str, target: str, **values: str) -> None:
    NotificationProducer(dbs["COUNTERS_DB"], "NOS_COUNTER_SET_REQUEST").send(op, target, values)


def field_is(raw: Callable[[int], object], key: str, name: str, value: str) -> Callable[[], bool]:
    return lambda: raw(2).hget(key, name) == value  # type: ignore[attr-defined]


@pytest.fixture
def switch(orchagent: Callable[..., Agent], dbs: Databases, syncd: SyncdDaemon) -> tuple[Agent, dict[str, str]]:
    agent = orchagent(PortOrch)
    return agent, boot_ports(agent, dbs, 4)


def test_every_port_queue_and_pg_gets_its_sai_stats_with_zeros(switch, dbs, raw):
    agent, ports = switch
    enable(dbs, "PORT", "PORT_BUFFER_DROP", "QUEUE", "QUEUE_WATERMARK", "PG_DROP", "PG_WATERMARK")
    counters = raw(2)
    queues = counters.hgetall("COUNTERS_QUEUE_NAME_MAP")
    pgs = counters.hgetall("COUNTERS_PG_NAME_MAP")
    assert len(queues) == len(pgs) == 4 * 8
    expected = {**{oid: (*stats.PORT_STATS, *stats.PORT_BUFFER_DROP_STATS) for oid in ports.values()},
                **{oid: (*stats.QUEUE_STATS, "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES") for oid in queues.values()},
                **{oid: (*stats.PG_DROP_STATS, *stats.PG_WATERMARK_STATS) for oid in pgs.values()}}

    def all_written() -> bool:
        return all(counters.hlen(f"COUNTERS:{oid}") == len(names) for oid, names in expected.items())

    wait_until(all_written, timeout=10)
    for oid, names in expected.items():
        assert counters.hgetall(f"COUNTERS:{oid}") == dict.fromkeys(names, "0"), oid
    # the watermark plugin ran: every queue and PG has its three watermark tables, at zero
    for table in ("USER_WATERMARKS", "PERIODIC_WATERMARKS", "PERSISTENT_WATERMARKS"):
        assert counters.hgetall(f"{table}:{queues['Ethernet4:7']}") == {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "0"}
        assert counters.hgetall(f"{table}:{pgs['Ethernet0:3']}") == dict.fromkeys(stats.PG_WATERMARK_STATS, "0")
    # groups nobody enabled are not polled, and the CPU port has no hash
    assert counters.hget(f"COUNTERS:{ports['Ethernet0']}", "SAI_PORT_STAT_WRED_DROPPED_PACKETS") is None
    cpu = agent.deps.switch.cpu_port
    assert not counters.exists(f"COUNTERS:{cpu}")


def test_disable_stops_updates_and_enable_restarts_them(switch, dbs, raw, syncd):
    _, ports = switch
    enable(dbs, "PORT", "PORT_BUFFER_DROP")
    eth0 = f"COUNTERS:{ports['Ethernet0']}"
    counter_set(dbs, "set", "Ethernet0", SAI_PORT_STAT_IF_IN_OCTETS="5")
    wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IF_IN_OCTETS", "5"))
    seen = syncd.executed("FLEX_COUNTER_TABLE")
    flex(dbs, "PORT", FLEX_COUNTER_STATUS="disable")
    wait_until(lambda: syncd.executed("FLEX_COUNTER_TABLE") > seen)
    # one request for both groups: PORT_BUFFER_DROP still polls (the proof that polls go on), PORT does not
    counter_set(dbs, "set", "Ethernet0", SAI_PORT_STAT_IF_IN_OCTETS="7", SAI_PORT_STAT_IN_DROPPED_PKTS="7")
    wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IN_DROPPED_PKTS", "7"))
    counter_set(dbs, "add", "Ethernet0", SAI_PORT_STAT_IN_DROPPED_PKTS="1")  # and one more poll after that
    wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IN_DROPPED_PKTS", "8"))
    assert raw(2).hget(eth0, "SAI_PORT_STAT_IF_IN_OCTETS") == "5"
    flex(dbs, "PORT", FLEX_COUNTER_STATUS="enable")
    wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IF_IN_OCTETS", "7"))


def test_injected_values_reach_ports_queues_and_pgs_by_name_or_oid(switch, dbs, raw):
    _, ports = switch
    enable(dbs, "PORT", "QUEUE", "PG_DROP", "WRED_ECN_QUEUE")
    counters = raw(2)
    queue = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet4:3")
    pg = counters.hget("COUNTERS_PG_NAME_MAP", "Ethernet4:3")
    counter_set(dbs, "set", "Ethernet4:3", SAI_QUEUE_STAT_PACKETS="100", SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS="3",
                SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS="2")
    counter_set(dbs, "add", "Ethernet4:3", SAI_QUEUE_STAT_PACKETS="11")
    counter_set(dbs, "set", ports["Ethernet4"], SAI_PORT_STAT_PFC_3_RX_PKTS="42")
    wait_until(field_is(raw, f"COUNTERS:{queue}", "SAI_QUEUE_STAT_PACKETS", "111"))
    wait_until(field_is(raw, f"COUNTERS:{queue}", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "3"))
    wait_until(field_is(raw, f"COUNTERS:{pg}", "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS", "2"))
    wait_until(field_is(raw, f"COUNTERS:{ports['Ethernet4']}", "SAI_PORT_STAT_PFC_3_RX_PKTS", "42"))
    # other objects are untouched
    other = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet4:2")
    assert counters.hget(f"COUNTERS:{other}", "SAI_QUEUE_STAT_PACKETS") == "0"


def test_watermarks_clear_on_read_and_fill_the_three_tables(switch, dbs, raw, syncd):
    # before watermark polling starts: a running telemetry timer takes a new interval only at its expiry
    Table(dbs["CONFIG_DB"], "WATERMARK_TABLE").set("TELEMETRY_INTERVAL", {"interval": "2"})
    wait_until(lambda: syncd.executed("WATERMARK_TABLE") >= 1)
    enable(dbs, "QUEUE_WATERMARK")
    counters = raw(2)
    queue = counters.hget("COUNTERS_QUEUE_NAME_MAP", "Ethernet0:3")
    counter_set(dbs, "set", "Ethernet0:3", SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES="1000")
    stat = "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"
    wait_until(field_is(raw, f"PERSISTENT_WATERMARKS:{queue}", stat, "1000"))
    assert counters.hget(f"USER_WATERMARKS:{queue}", stat) == "1000"
    # clear-on-read: the next poll publishes the peak since the previous one, 0
    wait_until(field_is(raw, f"COUNTERS:{queue}", stat, "0"))
    assert counters.hget(f"PERSISTENT_WATERMARKS:{queue}", stat) == "1000"
    # sonic-clear queue watermark unicast: USER only
    NotificationProducer(dbs["APPL_DB"], "WATERMARK_CLEAR_REQUEST").send("USER", "Q_SHARED_UNI")
    wait_until(field_is(raw, f"USER_WATERMARKS:{queue}", stat, "0"))
    # WatermarkOrch's telemetry timer (2 s here) zeroes PERIODIC; PERSISTENT keeps the peak
    wait_until(field_is(raw, f"PERIODIC_WATERMARKS:{queue}", stat, "0"), timeout=6)
    assert counters.hget(f"PERSISTENT_WATERMARKS:{queue}", stat) == "1000"
    # a smaller peak later does not lower the kept maximum
    counter_set(dbs, "set", "Ethernet0:3", SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES="300")
    wait_until(field_is(raw, f"USER_WATERMARKS:{queue}", stat, "300"))
    assert counters.hget(f"PERSISTENT_WATERMARKS:{queue}", stat) == "1000"


def test_a_removed_port_loses_its_counters(switch, dbs, raw):
    agent, ports = switch
    enable(dbs, "PORT", "QUEUE", "PG_WATERMARK")
    counters = raw(2)
    eth4 = ports["Ethernet4"]
    queues = [counters.hget("COUNTERS_QUEUE_NAME_MAP", f"Ethernet4:{i}") for i in range(8)]
    pgs = [counters.hget("COUNTERS_PG_NAME_MAP", f"Ethernet4:{i}") for i in range(8)]
    keys = [f"COUNTERS:{o}" for o in (eth4, *queues, *pgs)] + [f"USER_WATERMARKS:{o}" for o in pgs]
    wait_until(lambda: counters.exists(*keys) == len(keys), timeout=10)
    ProducerStateTable(dbs["APPL_DB"], "PORT_TABLE").delete("Ethernet4")
    agent.drive(lambda: counters.exists(*keys) == 0)
    assert counters.exists(f"COUNTERS:{ports['Ethernet0']}")


def test_bad_requests_are_reported_and_syncd_keeps_running(switch, dbs, raw, syncd):
    enable(dbs, "PORT")
    bad = {
        "Ethernet999": ("set", {"SAI_PORT_STAT_IF_IN_OCTETS": "1"}, "no SAI_OBJECT_TYPE_PORT of that name"),
        "Ethernet0": ("set", {"SAI_PORT_STAT_NOT_A_STAT": "1"}, "not a stat this ASIC keeps"),
        "Ethernet4": ("set", {"SAI_PORT_STAT_IF_IN_OCTETS": "lots"}, "not an integer"),
        "Ethernet8": ("bump", {"SAI_PORT_STAT_IF_IN_OCTETS": "1"}, "unknown op"),
        "Ethernet12": ("add", {"SAI_PORT_STAT_IF_IN_OCTETS": "-1"}, "leaves 0.."),
        "oid:0x1": ("set", {"SAI_QUEUE_STAT_PACKETS": "1"}, "no such SAI_OBJECT_TYPE_QUEUE"),
    }
    for target, (op, values, _) in bad.items():
        counter_set(dbs, op, target, **values)
    raw(2).publish("NOS_COUNTER_SET_REQUEST", "not json")  # dropped by the consumer with a warning
    rejected = raw(6)
    for target, (op, _, reason) in bad.items():
        key = f"NOS_REJECTED_TABLE|COUNTERS_DB:NOS_COUNTER_SET_REQUEST:{target}"
        wait_until(lambda key=key: rejected.exists(key))
        row = rejected.hgetall(key)
        assert reason in row["reason"] and row["op"] == op and row["daemon"] == "syncd", row
    # a bad FLEX_COUNTER_TABLE row too, and an unknown clear request
    flex(dbs, "QUEUE", FLEX_COUNTER_STATUS="sometimes", POLL_INTERVAL="5")
    NotificationProducer(dbs["APPL_DB"], "WATERMARK_CLEAR_REQUEST").send("USER", "EVERYTHING")
    wait_until(lambda: rejected.exists("NOS_REJECTED_TABLE|CONFIG_DB:FLEX_COUNTER_TABLE:QUEUE"))
    assert "must be enable or disable" in rejected.hget("NOS_REJECTED_TABLE|CONFIG_DB:FLEX_COUNTER_TABLE:QUEUE",
                                                        "reason")
    wait_until(lambda: rejected.exists("NOS_REJECTED_TABLE|APPL_DB:WATERMARK_CLEAR_REQUEST:EVERYTHING"))
    # still serving: a good request for a rejected object clears its report
    counter_set(dbs, "set", "Ethernet4", SAI_PORT_STAT_IF_IN_OCTETS="9")
    _, ports = switch
    wait_until(field_is(raw, f"COUNTERS:{ports['Ethernet4']}", "SAI_PORT_STAT_IF_IN_OCTETS", "9"))
    wait_until(lambda: not rejected.exists("NOS_REJECTED_TABLE|COUNTERS_DB:NOS_COUNTER_SET_REQUEST:Ethernet4"))
    assert syncd.alive()


def test_counters_survive_a_syncd_restart(switch, dbs, raw, syncd, redis_url):
    _, ports = switch
    enable(dbs, "PORT")
    eth0 = f"COUNTERS:{ports['Ethernet0']}"
    counter_set(dbs, "set", "Ethernet0", SAI_PORT_STAT_IF_OUT_OCTETS="1234")
    wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IF_OUT_OCTETS", "1234"))
    syncd.close()
    restarted = SyncdDaemon(redis_url)
    try:
        counter_set(dbs, "add", "Ethernet0", SAI_PORT_STAT_IF_OUT_OCTETS="1")
        wait_until(field_is(raw, eth0, "SAI_PORT_STAT_IF_OUT_OCTETS", "1235"))
    finally:
        restarted.close()
