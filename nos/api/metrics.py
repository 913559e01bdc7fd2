"""Prometheus metrics of the switch (``GET /metrics``): ``render(dbs) -> bytes`` in the text format,
served with ``CONTENT_TYPE``.

Names follow vinted/sonic-exporter (internal/collector/interface_collector.go, queue_collector.go),
so its dashboards work: the ``sonic_`` namespace, ``_total`` on counters, label values as it writes
them (``method`` ucast/broadcast/multicast; ``type`` error/discard/drop/pause for receive and
error/discard/pause for transmit; ``size`` 64 ... 16383; watermark ``type`` user/persistent/periodic).
One deliberate difference: sonic-exporter spells the receive size family ``receivd``; here it is
``sonic_interface_receive_ethernet_packets_total``. Families of our own, in the same style, for what
sonic-exporter lacks (PFC, ECN/WRED, PG watermarks and drops, PFC watchdog):

    sonic_pfc_rx_pause_frames_total{device,priority}   SAI_PORT_STAT_PFC_<p>_RX_PKTS
    sonic_pfc_tx_pause_frames_total{device,priority}   SAI_PORT_STAT_PFC_<p>_TX_PKTS
    sonic_pfc_pause_duration_us_total{device,priority,direction}  ..._<RX|TX>_PAUSE_DURATION_US
    sonic_queue_ecn_marked_packets_total{device,queue}  SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS
    sonic_queue_wred_dropped_packets_total{device,queue}  SAI_QUEUE_STAT_WRED_DROPPED_PACKETS
    sonic_pg_watermark_bytes{device,pg,type}            PERIODIC_WATERMARKS (headroom | shared): the
                                                        peak of the current telemetry interval
    sonic_pg_dropped_packets_total{device,pg}           SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS
    sonic_pfcwd_storms_detected_total{device,queue}     PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED
    sonic_pfcwd_storms_restored_total{device,queue}     PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED

A sample exists only when its field does (a disabled flex counter group, a port without PFC
watchdog): no zero is made up, and a family with no samples is left out. Fields that are not
integers are skipped. Objects come from the COUNTERS_DB name maps; interface properties from
CONFIG_DB ``PORT`` (admin status, MTU, speed, alias, index, description) and STATE_DB ``PORT_TABLE``
(``netdev_oper_status``). Reading is four pipelined round trips whatever the number of ports.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from nos.db.connector import Databases
from nos.db.errors import map_redis_errors
from nos.schema.dbconfig import CONFIG_DB, COUNTERS_DB, STATE_DB
from nos.schema.tables import (
    CFG_PORT_TABLE_NAME,
    COUNTERS_PG_NAME_MAP,
    COUNTERS_PORT_NAME_MAP,
    COUNTERS_QUEUE_NAME_MAP,
    COUNTERS_TABLE,
    STATE_PORT_TABLE_NAME,
)

# The classic text format every Prometheus reads (prometheus_client's own default for a plain scrape;
# its CONTENT_TYPE_LATEST now names text format 1.0.0, which older scrapers may not accept).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Written by syncd_sim's counter writer (SONiC's watermark plugins); not yet in nos.schema.tables.
WATERMARK_TABLES = {"user": "USER_WATERMARKS", "persistent": "PERSISTENT_WATERMARKS",
                    "periodic": "PERIODIC_WATERMARKS"}
PERIODIC = "periodic"

_IN, _OUT = "SAI_PORT_STAT_IF_IN_", "SAI_PORT_STAT_IF_OUT_"
RECEIVE_ERRS = {"error": _IN + "ERRORS", "discard": _IN + "DISCARDS", "drop": "SAI_PORT_STAT_IN_DROPPED_PKTS",
                "pause": "SAI_PORT_STAT_PAUSE_RX_PKTS"}
TRANSMIT_ERRS = {"error": _OUT + "ERRORS", "discard": _OUT + "DISCARDS", "pause": "SAI_PORT_STAT_PAUSE_TX_PKTS"}
METHODS = ("ucast", "broadcast", "multicast")
SIZES = {"64": "64", "127": "65_TO_127", "255": "128_TO_255", "511": "256_TO_511", "1023": "512_TO_1023",
         "1518": "1024_TO_1518", "2047": "1519_TO_2047", "4095": "2048_TO_4095", "9216": "4096_TO_9216",
         "16383": "9217_TO_16383"}
QUEUE_COUNTERS = {"packets": "SAI_QUEUE_STAT_PACKETS", "bytes": "SAI_QUEUE_STAT_BYTES",
                  "dropped_packets": "SAI_QUEUE_STAT_DROPPED_PACKETS", "dropped_bytes": "SAI_QUEUE_STAT_DROPPED_BYTES",
                  "shared_watermark_bytes": "SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES",
                  "ecn_marked_packets": "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS",
                  "wred_dropped_packets": "SAI_QUEUE_STAT_WRED_DROPPED_PACKETS"}
PFCWD_COUNTERS = {"storms_detected": "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED",
                  "storms_restored": "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"}
PG_WATERMARKS = {"headroom": "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES",
                 "shared": "SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES"}
PG_DROPPED = "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"
_WATERMARK_LABEL = re.compile(r"^SAI_(?:QUEUE|INGRESS_PRIORITY_GROUP)_STAT_(.*?)(?:_WATERMARK_BYTES)?$")

Fields = Mapping[str, str]


# -- what is read --------------------------------------------------------------------------------
@dataclass(frozen=True)
class PortData:
    name: str
    counters: Fields = field(default_factory=dict)
    config: Fields = field(default_factory=dict)   # CONFIG_DB PORT|<name>
    state: Fields = field(default_factory=dict)    # STATE_DB PORT_TABLE|<name>


@dataclass(frozen=True)
class BufferData:
    """A queue or a priority group: its port, index, COUNTERS hash and watermark tables by type."""

    port: str
    index: str
    counters: Fields = field(default_factory=dict)
    watermarks: Mapping[str, Fields] = field(default_factory=dict)


@dataclass(frozen=True)
class Snapshot:
    ports: tuple[PortData, ...] = ()
    queues: tuple[BufferData, ...] = ()
    pgs: tuple[BufferData, ...] = ()


def natural_key(name: str) -> tuple[Any, ...]:
    """Ethernet4 before Ethernet12; "Ethernet0:10" after "Ethernet0:9"."""
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", name))


def read_snapshot(dbs: Databases) -> Snapshot:
    """Everything the metrics need, in four pipelined round trips."""
    counters = dbs[COUNTERS_DB].client
    with map_redis_errors("metrics read"):
        pipe = counters.pipeline(transaction=False)
        for name_map in (COUNTERS_PORT_NAME_MAP, COUNTERS_QUEUE_NAME_MAP, COUNTERS_PG_NAME_MAP):
            pipe.hgetall(name_map)
        port_map, queue_map, pg_map = (_sorted(m) for m in pipe.execute())
        pipe = counters.pipeline(transaction=False)
        for oid in port_map.values():
            pipe.hgetall(f"{COUNTERS_TABLE}:{oid}")
        for oid in queue_map.values():
            pipe.hgetall(f"{COUNTERS_TABLE}:{oid}")
            for table in WATERMARK_TABLES.values():
                pipe.hgetall(f"{table}:{oid}")
        for oid in pg_map.values():
            pipe.hgetall(f"{COUNTERS_TABLE}:{oid}")
            pipe.hgetall(f"{WATERMARK_TABLES[PERIODIC]}:{oid}")
        rows = iter(pipe.execute())
        configs = _rows(dbs, CONFIG_DB, CFG_PORT_TABLE_NAME, port_map)
        states = _rows(dbs, STATE_DB, STATE_PORT_TABLE_NAME, port_map)
    ports = tuple(PortData(name, next(rows), configs[name], states[name]) for name in port_map)
    queues = tuple(BufferData(*_split(name), next(rows), {t: next(rows) for t in WATERMARK_TABLES})
                   for name in queue_map)
    pgs = tuple(BufferData(*_split(name), next(rows), {PERIODIC: next(rows)}) for name in pg_map)
    return Snapshot(ports, queues, pgs)


def _sorted(name_map: Mapping[str, str]) -> dict[str, str]:
    return {name: name_map[name] for name in sorted(name_map, key=natural_key)}


def _split(name: str) -> tuple[str, str]:
    port, _, index = name.rpartition(":")
    return port, index


def _rows(dbs: Databases, db: str, table: str, names: Iterable[str]) -> dict[str, dict[str, str]]:
    conn = dbs[db]
    pipe = conn.client.pipeline(transaction=False)
    keys = list(names)
    for name in keys:
        pipe.hgetall(f"{table}{conn.separator}{name}")
    return dict(zip(keys, pipe.execute(), strict=True))


# -- what is exported (pure) ---------------------------------------------------------------------
class Families:
    """The metric families being built, in first-use order; only families with samples are emitted."""

    def __init__(self) -> None:
        self._families: dict[str, CounterMetricFamily | GaugeMetricFamily] = {}

    def add(self, kind: str, name: str, doc: str, labels: dict[str, str], value: float | None) -> None:
        if value is None:
            return
        family = self._families.get(name)
        if family is None:
            if kind == "counter":
                family = CounterMetricFamily(name, doc, labels=list(labels))
            else:
                family = GaugeMetricFamily(name, doc, labels=list(labels))
            self._families[name] = family
        family.add_metric(list(labels.values()), value)

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._families.values())


def _num(fields: Fields, name: str) -> float | None:
    text = fields.get(name)
    if text is None or not text.isdecimal():
        return None
    return float(int(text))


def families(snapshot: Snapshot) -> Families:
    """Every metric family of a snapshot."""
    out = Families()
    for port in snapshot.ports:
        _interface(out, port)
        _pfc(out, port)
    for queue in snapshot.queues:
        _queue(out, queue)
    for pg in snapshot.pgs:
        _pg(out, pg)
    return out


def _interface(out: Families, port: PortData) -> None:
    c, dev = port.counters, {"device": port.name}
    out.add("counter", "sonic_interface_receive_bytes", "Number of bytes received on an interface", dev,
            _num(c, _IN + "OCTETS"))
    out.add("counter", "sonic_interface_transmit_bytes", "Number of bytes transmitted on an interface", dev,
            _num(c, _OUT + "OCTETS"))
    for method in METHODS:
        labels = {**dev, "method": method}
        out.add("counter", "sonic_interface_receive_packets", "Number of packets received on an interface",
                labels, _num(c, f"{_IN}{method.upper()}_PKTS"))
        out.add("counter", "sonic_interface_transmit_packets", "Number of packets transmitted on an interface",
                labels, _num(c, f"{_OUT}{method.upper()}_PKTS"))
    for kind, stat in RECEIVE_ERRS.items():
        out.add("counter", "sonic_interface_receive_errs", "Number of receive errs on an interface",
                {**dev, "type": kind}, _num(c, stat))
    for kind, stat in TRANSMIT_ERRS.items():
        out.add("counter", "sonic_interface_transmit_errs", "Number of transmit errs on an interface",
                {**dev, "type": kind}, _num(c, stat))
    for size, stat in SIZES.items():
        labels = {**dev, "size": size}
        out.add("counter", "sonic_interface_receive_ethernet_packets",
                "Number of ethernet packets received on an interface", labels,
                _num(c, f"SAI_PORT_STAT_ETHER_IN_PKTS_{stat}_OCTETS"))
        out.add("counter", "sonic_interface_transmit_ethernet_packets",
                "Number of ethernet packets transmitted on an interface", labels,
                _num(c, f"SAI_PORT_STAT_ETHER_OUT_PKTS_{stat}_OCTETS"))
    _properties(out, port, dev)


def _properties(out: Families, port: PortData, dev: dict[str, str]) -> None:
    cfg = port.config
    out.add("gauge", "sonic_interface_admin_status", "Administrative status of an interface (1 up)", dev,
            1.0 if cfg.get("admin_status") == "up" else 0.0)
    out.add("gauge", "sonic_interface_operational_status", "Operational status of an interface (1 up)", dev,
            1.0 if port.state.get("netdev_oper_status") == "up" else 0.0)
    out.add("gauge", "sonic_interface_mtu_bytes", "Network device property: mtu_bytes", dev, _num(cfg, "mtu"))
    speed = _num(cfg, "speed")
    out.add("gauge", "sonic_interface_speed_bytes", "Network device property: speed_bytes", dev,
            None if speed is None else speed * 1000 * 1000 / 8)
    info = {**dev, "alias": cfg.get("alias", ""), "index": cfg.get("index", ""),
            "description": cfg.get("description", "")}
    out.add("gauge", "sonic_interface_info", "Non-numeric data about interface, value is always 1", info, 1.0)


def _pfc(out: Families, port: PortData) -> None:
    c = port.counters
    for p in range(8):
        labels = {"device": port.name, "priority": str(p)}
        out.add("counter", "sonic_pfc_rx_pause_frames", "PFC pause frames received, per priority", labels,
                _num(c, f"SAI_PORT_STAT_PFC_{p}_RX_PKTS"))
        out.add("counter", "sonic_pfc_tx_pause_frames", "PFC pause frames sent, per priority", labels,
                _num(c, f"SAI_PORT_STAT_PFC_{p}_TX_PKTS"))
        for direction in ("rx", "tx"):
            out.add("counter", "sonic_pfc_pause_duration_us", "Time paused by PFC, per priority and direction (us)",
                    {**labels, "direction": direction},
                    _num(c, f"SAI_PORT_STAT_PFC_{p}_{direction.upper()}_PAUSE_DURATION_US"))


def _queue(out: Families, queue: BufferData) -> None:
    labels = {"device": queue.port, "queue": queue.index}
    for what, stat in QUEUE_COUNTERS.items():
        out.add("counter", f"sonic_queue_{what}", f"Queue counter {stat}", labels, _num(queue.counters, stat))
    for what, stat in PFCWD_COUNTERS.items():
        out.add("counter", f"sonic_pfcwd_{what}", f"PFC watchdog: {stat}", labels, _num(queue.counters, stat))
    for kind, fields in queue.watermarks.items():
        for stat in sorted(fields):
            found = _WATERMARK_LABEL.match(stat)
            if found is None:
                continue
            out.add("counter", "sonic_queue_watermark_bytes", "Network device property: watermarks of queue",
                    {**labels, "type": kind, "watermark": found.group(1).lower()}, _num(fields, stat))


def _pg(out: Families, pg: BufferData) -> None:
    labels = {"device": pg.port, "pg": pg.index}
    periodic = pg.watermarks.get(PERIODIC, {})
    for kind, stat in PG_WATERMARKS.items():
        out.add("gauge", "sonic_pg_watermark_bytes", "Priority group watermark of the current telemetry interval",
                {**labels, "type": kind}, _num(periodic, stat))
    out.add("counter", "sonic_pg_dropped_packets", "Packets dropped at a priority group", labels,
            _num(pg.counters, PG_DROPPED))


# -- the exposition ------------------------------------------------------------------------------
class _Metrics(Collector):
    """Hands prometheus_client metrics that are already built."""

    def __init__(self, metrics: Iterable[Metric]) -> None:
        self.metrics = list(metrics)

    def collect(self) -> Iterable[Metric]:
        return self.metrics


def exposition(metrics: Iterable[Metric]) -> bytes:
    """The Prometheus text format of some metric families."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Metrics(metrics))
    return generate_latest(registry)


def render(dbs: Databases) -> bytes:
    """The switch's metrics, read now. Raises ``nos.db.DbError`` when Redis fails."""
    started = time.perf_counter()
    built = list(families(read_snapshot(dbs)))
    took = GaugeMetricFamily("sonic_scrape_duration_seconds", "Time it took to read the switch's databases")
    took.add_metric([], time.perf_counter() - started)
    return exposition([*built, took])
