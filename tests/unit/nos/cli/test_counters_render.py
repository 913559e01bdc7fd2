"""Counter tables (portstat, queuestat, watermarkstat, pg-drop, pfcstat) with plain data, against golden
strings in SONiC's format."""

from __future__ import annotations

import pytest

from nos.cli.show import pfc, portstat, queuestat, watermark
from nos.cli.show.counters_db import Counters, CountersError, priority_groups, queues, stat_value, with_commas
from nos.cli.show.render import Snapshot

P = "SAI_PORT_STAT_"
PORT_OIDS = {"Ethernet0": "oid:0x1", "Ethernet4": "oid:0x2", "Ethernet8": "oid:0x3"}
QUEUES = {"Ethernet0:0": "oid:0x10", "Ethernet0:1": "oid:0x11", "Ethernet4:0": "oid:0x20", "Ethernet4:10": "oid:0x21"}
PGS = {"Ethernet0:0": "oid:0x30", "Ethernet0:3": "oid:0x33", "Ethernet4:3": "oid:0x43"}


def _port_stats(rx_ucast: str) -> dict[str, str]:
    return {P + "IF_IN_UCAST_PKTS": rx_ucast, P + "IF_IN_NON_UCAST_PKTS": "3", P + "IF_IN_ERRORS": "0",
            P + "IF_IN_DISCARDS": "5", P + "ETHER_RX_OVERSIZE_PKTS": "0", P + "IF_OUT_UCAST_PKTS": "1000",
            P + "IF_OUT_NON_UCAST_PKTS": "0", P + "IF_OUT_ERRORS": "0", P + "IF_OUT_DISCARDS": "0",
            P + "ETHER_TX_OVERSIZE_PKTS": "0", P + "PFC_3_RX_PKTS": "12345", P + "PFC_4_TX_PKTS": "0"}


C = Counters(
    maps={
        "COUNTERS_PORT_NAME_MAP": PORT_OIDS,
        "COUNTERS_QUEUE_NAME_MAP": QUEUES,
        "COUNTERS_QUEUE_PORT_MAP": {"oid:0x10": "oid:0x1", "oid:0x11": "oid:0x1", "oid:0x20": "oid:0x2",
                                    "oid:0x21": "oid:0x2"},
        "COUNTERS_QUEUE_INDEX_MAP": {"oid:0x10": "0", "oid:0x11": "1", "oid:0x20": "0", "oid:0x21": "10"},
        "COUNTERS_QUEUE_TYPE_MAP": {"oid:0x10": "SAI_QUEUE_TYPE_UNICAST", "oid:0x11": "SAI_QUEUE_TYPE_UNICAST",
                                    "oid:0x20": "SAI_QUEUE_TYPE_UNICAST", "oid:0x21": "SAI_QUEUE_TYPE_MULTICAST"},
        "COUNTERS_PG_NAME_MAP": PGS,
        "COUNTERS_PG_PORT_MAP": {"oid:0x30": "oid:0x1", "oid:0x33": "oid:0x1", "oid:0x43": "oid:0x2"},
        "COUNTERS_PG_INDEX_MAP": {"oid:0x30": "0", "oid:0x33": "3", "oid:0x43": "3"},
    },
    stats={
        "COUNTERS": {
            "oid:0x1": _port_stats("18446744073709551612"),  # 64-bit counters stay exact
            "oid:0x2": {P + "IF_IN_UCAST_PKTS": "7"},  # the others missing: N/A
            "oid:0x10": {"SAI_QUEUE_STAT_PACKETS": "1234567", "SAI_QUEUE_STAT_BYTES": "0",
                         "SAI_QUEUE_STAT_DROPPED_PACKETS": "0", "SAI_QUEUE_STAT_DROPPED_BYTES": "0",
                         "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "10",
                         "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES": "15000"},
            "oid:0x11": {"SAI_QUEUE_STAT_PACKETS": "0", "SAI_QUEUE_STAT_BYTES": "0",
                         "SAI_QUEUE_STAT_DROPPED_PACKETS": "0", "SAI_QUEUE_STAT_DROPPED_BYTES": "0"},
            "oid:0x33": {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "9"},
        },
        "RATES": {"oid:0x1": {"RX_BPS": "25000000000", "RX_PPS": "100.5", "TX_BPS": "12000", "TX_PPS": "1"}},
        "USER_WATERMARKS": {"oid:0x10": {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "2048"},
                            "oid:0x33": {"SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES": "4096"}},
    },
    rows=Snapshot({
        ("APPL_DB", "PORT_TABLE"): {"Ethernet0": {"admin_status": "up", "oper_status": "up", "speed": "400000"},
                                   "Ethernet4": {"admin_status": "up", "oper_status": "down", "speed": "400000"},
                                   "Ethernet8": {"admin_status": "down", "oper_status": "down", "speed": "100000"}},
        ("STATE_DB", "PORT_TABLE"): {"Ethernet0": {"speed": "200000"}, "Ethernet4": {"speed": "100000"}},
    }),
)

PORTSTAT = """\
    IFACE    STATE                       RX_OK         RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK      TX_BPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR
---------  -------  --------------------------  -------------  ---------  --------  --------  --------  -------  ----------  ---------  --------  --------  --------
Ethernet0        U  18,446,744,073,709,551,615  25000.00 MB/s    100.00%         0         5         0    1,000  12.00 KB/s      0.00%         0         0         0
Ethernet4        D                         N/A            N/A        N/A       N/A       N/A       N/A      N/A         N/A        N/A       N/A       N/A       N/A
Ethernet8        X                         N/A            N/A        N/A       N/A       N/A       N/A      N/A         N/A        N/A       N/A       N/A       N/A"""  # noqa: E501


def test_portstat_table_is_sonics():
    # Ethernet0: rates from RATES, UTIL over STATE_DB's 200G while up; Ethernet4 lacks stats: N/A, not 0.
    assert portstat.table_text(portstat.HEADER_STD, portstat.port_table(C)) == PORTSTAT


def test_portstat_views_and_filter():
    assert portstat.port_table(C, "errors", {"Ethernet0", "Ethernet99"}) == [
        ["Ethernet0", "U", "0", "5", "0", "0", "0", "0"]]
    rates = portstat.port_table(C, "rates")
    assert rates[0] == ["Ethernet0", "U", "18,446,744,073,709,551,615", "25000.00 MB/s", "100.50/s", "100.00%",
                        "1,000", "12.00 KB/s", "1.00/s", "0.00%"]
    assert rates[1][3:6] == ["N/A", "N/A", "N/A"]
    assert [h for h in portstat.HEADER_ALL if h not in portstat.HEADER_STD] == [
        "RX_PPS", "TX_PPS", "TRIM", "TRIM_TX", "TRIM_DRP"]
    assert [h for h in portstat.HEADER_ALL_JSON if h not in portstat.HEADER_STD] == ["RX_PPS", "TX_PPS"]


def test_portstat_json_is_table_as_json():
    records = portstat.table_json(portstat.HEADER_ERRORS, portstat.port_table(C, "errors"))
    assert records["Ethernet8"] == {"STATE": "X", "RX_ERR": "N/A", "RX_DRP": "N/A", "RX_OVR": "N/A",
                                    "TX_ERR": "N/A", "TX_DRP": "N/A", "TX_OVR": "N/A"}


@pytest.mark.parametrize(("rate", "text"), [
    (None, "N/A"), (0.0, "0.00 B/s"), (10_000.0, "10000.00 B/s"), (12_000.0, "12.00 KB/s"),
    (653_870_000.0, "653.87 MB/s"),
])
def test_byte_rates_are_formatted_as_netstat_does(rate, text):
    assert portstat.format_brate(rate) == text


def test_rates_carrying_util_are_printed_directly():
    c = Counters(C.maps, {"RATES": {"oid:0x1": {"RX_BPS": "0", "RX_UTIL": "12.7654"}}}, C.rows)
    assert portstat.port_values(c, "Ethernet0")["RX_UTIL"] == "12.77%"


QUEUE_COUNTERS = """\
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet0    UC0       1,234,567                0            0             0
Ethernet0    UC1               0                0            0             0

     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet4    UC0             N/A              N/A          N/A           N/A
Ethernet4   MC10             N/A              N/A          N/A           N/A

"""


def test_queue_counters_are_queuestats():
    assert queuestat.queue_text(queuestat.queue_rows(C, queuestat.COUNTERS), queuestat.COUNTERS) == QUEUE_COUNTERS


def test_queue_counters_nonzero_port_and_all():
    found = queuestat.queue_rows(C, queuestat.COUNTERS, "Ethernet0", nonzero=True)
    assert [(r.port, r.label) for rows in found.values() for r in rows] == [("Ethernet0", "UC0")]
    text = queuestat.queue_text(queuestat.queue_rows(C, (*queuestat.COUNTERS, *queuestat.TRIM), "Ethernet0"),
                                (*queuestat.COUNTERS, *queuestat.TRIM))
    assert text.splitlines()[0].split() == ["Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts",
                                            "Drop/bytes", "Trim/pkts", "TrimSent/pkts", "TrimDrop/pkts"]


def test_queue_json_is_queuestats():
    found = queuestat.queue_rows(C, queuestat.WRED, "Ethernet0")
    assert queuestat.queue_json(found, queuestat.WRED) == {"Ethernet0": {
        "UC0": {"wreddroppacket": "N/A", "wreddropbytes": "N/A", "ecnmarkedpacket": "10", "ecnmarkedbytes": "15,000"},
        "UC1": {"wreddroppacket": "N/A", "wreddropbytes": "N/A", "ecnmarkedpacket": "N/A", "ecnmarkedbytes": "N/A"}}}


def test_queues_and_pgs_are_found_through_the_maps():
    assert [q.label for q in queues(C)["Ethernet4"]] == ["UC0", "MC10"]
    assert [pg.index for pg in priority_groups(C)["Ethernet0"]] == [0, 3]
    broken = Counters({**C.maps, "COUNTERS_QUEUE_TYPE_MAP": {}}, C.stats, C.rows)
    with pytest.raises(CountersError, match="Queue Type is not available for Ethernet0:0"):
        queues(broken)


WATERMARK_UC = """\
Egress shared pool occupancy per unicast queue:
     Port    UC0    UC1
---------  -----  -----
Ethernet0   2048    N/A
Ethernet4    N/A      0
Ethernet8      0      0"""

PG_HEADROOM = """\
Ingress headroom per PG:
     Port    PG0    PG3
---------  -----  -----
Ethernet0    N/A   4096
Ethernet4      0    N/A
Ethernet8      0      0"""


def test_watermarks_are_watermarkstats():
    # A port without an object of an index shows 0; an object without the stat shows N/A.
    kind = watermark.KINDS["q_shared_uni"]
    assert watermark.grid(C, kind, "USER_WATERMARKS").text(kind.title) == WATERMARK_UC
    kind = watermark.KINDS["pg_headroom"]
    assert watermark.grid(C, kind, "USER_WATERMARKS").text(kind.title) == PG_HEADROOM
    assert watermark.grid(C, watermark.KINDS["pg_drop"], "COUNTERS").records()[0] == {
        "Port": "Ethernet0", "PG0": "N/A", "PG3": "9"}


def test_watermark_of_absent_queue_type_is_sonics_message():
    with pytest.raises(watermark.EmptyObjectMap, match="multicast queues are not configured") as found:
        watermark.grid(Counters({**C.maps, "COUNTERS_QUEUE_TYPE_MAP": dict.fromkeys(
            C.maps["COUNTERS_QUEUE_TYPE_MAP"], "SAI_QUEUE_TYPE_UNICAST")}, C.stats, C.rows),
            watermark.KINDS["q_shared_multi"], "USER_WATERMARKS")
    assert found.value.error is False


PFC = """\
  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0     N/A     N/A     N/A  12,345     N/A     N/A     N/A     N/A
Ethernet4     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A
Ethernet8     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A

  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0     N/A     N/A     N/A     N/A       0     N/A     N/A     N/A
Ethernet4     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A
Ethernet8     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A"""


def test_pfc_counters_are_pfcstats():
    assert pfc.pfc_text(C) == PFC
    assert pfc.pfc_json(C)["rx"]["Ethernet0"]["PFC3"] == "12,345"


def test_pfc_priorities():
    snap = Snapshot({("CONFIG_DB", "PORT_QOS_MAP"): {"Ethernet8": {"pfc_enable": "3,4"}, "Ethernet0": {}}})
    found = pfc.lossless_priorities(snap)
    assert found == {"Ethernet0": "N/A", "Ethernet8": "3,4"}
    assert pfc.priority_text(found) == """\
Interface    Lossless priorities
-----------  ---------------------
Ethernet0    N/A
Ethernet8    3,4"""


@pytest.mark.parametrize(("fields", "names", "value"), [
    (None, ("a",), "N/A"), ({"a": "1"}, ("a", "b"), "N/A"), ({"a": "1", "b": "2.0"}, ("a", "b"), "3"),
    ({"a": "x"}, ("a",), "N/A"),
])
def test_stat_values(fields, names, value):
    assert stat_value(fields, *names) == value


def test_thousands_separators_only_on_numbers():
    assert [with_commas(v) for v in ("0", "1234567", "N/A", "-5")] == ["0", "1,234,567", "N/A", "-5"]
