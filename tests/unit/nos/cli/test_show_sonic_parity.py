"""``nos show`` against sonic-utilities, byte for byte (issue 16).

Each case rebuilds, as plain rows, the part of sonic-utilities' mock databases (``tests/mock_tables``)
that one of its show tests reads, and compares what we print with what that test expects (the
expected strings of ``tests/vlan_test.py``, ``tests/intfutil_test.py``, ``tests/interfaces_test.py``,
``tests/pfcwd_input``, ``tests/queue_counter_test.py`` and ``tests/ecn_input``). Only the rows and
fields the command reads are carried over. The CLI prints most texts with ``click.echo``, hence the
``+ "\\n"``.
"""

from __future__ import annotations

import datetime
import json

import pytest

from nos.cli.show import buffer, mac, pfc, pfcwd, portstat, queuestat, render, watermark
from nos.cli.show.counters_db import Counters
from nos.cli.show.ecn import ecn_text
from nos.cli.show.render import Snapshot

# ---- show vlan brief (vlan_test.py: show_vlan_brief_output) ------------------------------------

SONIC_VLANS = Snapshot({
    ("CONFIG_DB", "VLAN"): {
        "Vlan1000": {"vlanid": "1000", "dhcp_servers": ["192.0.0.1", "192.0.0.2", "192.0.0.3", "192.0.0.4"]},
        "Vlan2000": {"vlanid": "2000", "dhcp_servers": ["192.0.0.1", "192.0.0.2", "192.0.0.3", "192.0.0.4"]},
        "Vlan3000": {"vlanid": "3000"}, "Vlan4000": {"vlanid": "4000"},
    },
    ("CONFIG_DB", "VLAN_INTERFACE"): {
        "Vlan1000": {"static_anycast_gateway": "true"}, "Vlan2000": {"proxy_arp": "enabled"},
        "Vlan3000": {"loopback_action": "forward"},
        "Vlan1000|192.168.0.1/21": {}, "Vlan1000|fc02:1000::1/64": {},
        "Vlan2000|192.168.0.10/21": {}, "Vlan2000|fc02:1011::1/64": {},
    },
    ("CONFIG_DB", "VLAN_MEMBER"): {
        **{f"Vlan1000|Ethernet{n}": {"tagging_mode": "untagged"} for n in (4, 8, 12, 16)},
        **{f"Vlan2000|Ethernet{n}": {"tagging_mode": "untagged"} for n in (24, 28)},
        "Vlan4000|PortChannel1001": {"tagging_mode": "tagged"},
    },
})

SONIC_VLAN_BRIEF = """\
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|   VLAN ID | IP Address      | Ports           | Port Tagging   | Proxy ARP   | Static Anycast Gateway   |
+===========+=================+=================+================+=============+==========================+
|      1000 | 192.168.0.1/21  | Ethernet4       | untagged       | disabled    | enabled                  |
|           | fc02:1000::1/64 | Ethernet8       | untagged       |             |                          |
|           |                 | Ethernet12      | untagged       |             |                          |
|           |                 | Ethernet16      | untagged       |             |                          |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|      2000 | 192.168.0.10/21 | Ethernet24      | untagged       | enabled     | disabled                 |
|           | fc02:1011::1/64 | Ethernet28      | untagged       |             |                          |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|      3000 |                 |                 |                | disabled    | disabled                 |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|      4000 |                 | PortChannel1001 | tagged         | disabled    | disabled                 |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
"""


def test_show_vlan_brief_has_sonic_utilities_columns() -> None:
    assert render.vlan_brief_table(render.vlan_brief(SONIC_VLANS)) + "\n" == SONIC_VLAN_BRIEF


# ---- show interfaces status (intfutil_test.py: show_interface_status_output) --------------------


def _appl_port(lanes: str, speed: str, alias: str, oper: str = "up", **extra: str) -> dict[str, str]:
    return {"lanes": lanes, "speed": speed, "alias": alias, "oper_status": oper, "admin_status": "up",
            "mtu": "9100", "pfc_asym": "off", **extra}


SONIC_PORTS = Snapshot({
    ("CONFIG_DB", "PORT"): {
        **{f"Ethernet{n}": {} for n in range(0, 128, 4)},
        "Ethernet0": {"mode": "routed"}, "Ethernet16": {"mode": "trunk"},
        "Ethernet24": {"mode": "trunk", "role": "Dpc"}, "Ethernet28": {"mode": "trunk"},
        "Ethernet32": {"mode": "routed"}, "Ethernet36": {"mode": "routed"},
        **{f"Ethernet{n}": {"mode": "routed"} for n in (112, 116, 120, 124)},
    },
    ("APPL_DB", "PORT_TABLE"): {
        "Ethernet0": _appl_port("0", "25000", "Ethernet0", "down", fec="rs"),
        "Ethernet16": _appl_port("16", "100", "etp5"),
        "Ethernet36": _appl_port("9,10,11,12", "10", "etp10"),
        "Ethernet24": _appl_port("24", "1000", "etp6", role="Dpc"),
        "Ethernet28": _appl_port("28", "1000", "etp8"),
        "Ethernet32": _appl_port("13,14,15,16", "40000", "etp9", fec="rs"),
        "Ethernet112": _appl_port("93,94,95,96", "100000", "etp29", fec="rs"),
        "Ethernet116": _appl_port("89,90,91,92", "40000", "etp30", fec="rs"),
        "Ethernet120": _appl_port("101,102,103,104", "40000", "etp31", fec="rs"),
        "Ethernet124": _appl_port("97,98,99,100", "40000", "etp32", fec="auto"),
        "Ethernet200": _appl_port("200", "40000", "etp50"),  # not in CONFIG_DB PORT: not listed
    },
    ("STATE_DB", "PORT_TABLE"): {
        "Ethernet0": {"speed": "100000"}, "Ethernet16": {"speed": "100"}, "Ethernet24": {"speed": "1000"},
        "Ethernet36": {"speed": "10"}, "Ethernet112": {"speed": "40000"}, "Ethernet124": {"speed": "40000"},
        "Ethernet32": {"link_training_status": "trained"},
    },
    ("STATE_DB", "TRANSCEIVER_INFO"): {
        "Ethernet0": {"type": "QSFP28 or later"}, "Ethernet16": {"type": "RJ45"}, "Ethernet28": {"type": "RJ45"},
        "Ethernet36": {"type": "RJ45"},
    },
    ("CONFIG_DB", "VLAN_MEMBER"): SONIC_VLANS.rows("CONFIG_DB", "VLAN_MEMBER"),
    ("CONFIG_DB", "PORTCHANNEL"): {
        lag: {"admin_status": "up", "mtu": "9100", "min_links": "1"}
        for lag in ("PortChannel0001", "PortChannel0002", "PortChannel0003", "PortChannel0004", "PortChannel1001")},
    ("CONFIG_DB", "PORTCHANNEL_MEMBER"): {
        "PortChannel1001|Ethernet32": {}, "PortChannel0001|Ethernet112": {}, "PortChannel0002|Ethernet116": {},
        "PortChannel0003|Ethernet120": {}, "PortChannel0004|Ethernet124": {},
    },
    ("APPL_DB", "LAG_TABLE"): {
        "PortChannel0001": {"admin_status": "up", "mtu": "9100", "oper_status": "down"},
        **{lag: {"admin_status": "up", "mtu": "9100", "oper_status": "up"}
           for lag in ("PortChannel0002", "PortChannel0003", "PortChannel0004")},
    },
})

SONIC_STATUS = """\
      Interface            Lanes    Speed    MTU    FEC      Alias             Vlan    Oper    Admin               Type    Asym PFC
---------------  ---------------  -------  -----  -----  ---------  ---------------  ------  -------  -----------------  ----------
      Ethernet0                0      25G   9100     rs  Ethernet0           routed    down       up    QSFP28 or later         off
     Ethernet16               16     100M   9100    N/A       etp5            trunk      up       up               RJ45         off
     Ethernet24               24       1G   9100    N/A       etp6            trunk      up       up  DPU-NPU Data Port         off
     Ethernet28               28    1000M   9100    N/A       etp8            trunk      up       up               RJ45         off
     Ethernet32      13,14,15,16      40G   9100     rs       etp9  PortChannel1001      up       up                N/A         off
     Ethernet36       9,10,11,12      10M   9100    N/A      etp10           routed      up       up               RJ45         off
    Ethernet112      93,94,95,96      40G   9100     rs      etp29  PortChannel0001      up       up                N/A         off
    Ethernet116      89,90,91,92      40G   9100     rs      etp30  PortChannel0002      up       up                N/A         off
    Ethernet120  101,102,103,104      40G   9100     rs      etp31  PortChannel0003      up       up                N/A         off
    Ethernet124     97,98,99,100      40G   9100   auto      etp32  PortChannel0004      up       up                N/A         off
PortChannel0001              N/A      40G   9100    N/A        N/A           routed    down       up                N/A         N/A
PortChannel0002              N/A      40G   9100    N/A        N/A           routed      up       up                N/A         N/A
PortChannel0003              N/A      40G   9100    N/A        N/A           routed      up       up                N/A         N/A
PortChannel0004              N/A      40G   9100    N/A        N/A           routed      up       up                N/A         N/A
PortChannel1001              N/A      40G   9100    N/A        N/A            trunk     N/A      N/A                N/A         N/A
"""  # noqa: E501


def test_show_interfaces_status_types_and_speeds_are_intfutils() -> None:
    # Ethernet24 (role Dpc, no transceiver): "DPU-NPU Data Port", 1000 Mb/s -> 1G; Ethernet28 (RJ45): 1000M.
    assert render.interface_status_table(render.interface_status(SONIC_PORTS)) + "\n" == SONIC_STATUS


def test_switchport_mode_decides_the_vlan_column_unless_the_port_is_in_a_lag() -> None:
    snap = Snapshot({
        ("CONFIG_DB", "PORT"): {"Ethernet0": {"mode": "routed"}, "Ethernet4": {}, "Ethernet8": {"mode": "access"}},
        ("APPL_DB", "PORT_TABLE"): {name: {} for name in ("Ethernet0", "Ethernet4", "Ethernet8")},
        ("CONFIG_DB", "VLAN_MEMBER"): {"Vlan10|Ethernet0": {}, "Vlan10|Ethernet4": {}},
        ("CONFIG_DB", "PORTCHANNEL_MEMBER"): {"PortChannel7|Ethernet8": {}},
        ("CONFIG_DB", "PORTCHANNEL"): {"PortChannel7": {"mode": "trunk"}},
    })
    assert [(r["interface"], r["vlan"]) for r in render.interface_status(snap)] == [
        ("Ethernet0", "routed"), ("Ethernet4", "trunk"), ("Ethernet8", "PortChannel7"), ("PortChannel7", "trunk")]


# ---- show interfaces portchannel (interfaces_test.py: show_interfaces_portchannel_output) -------

SONIC_LAGS = Snapshot({
    ("CONFIG_DB", "PORTCHANNEL"): SONIC_PORTS.rows("CONFIG_DB", "PORTCHANNEL"),
    ("APPL_DB", "LAG_TABLE"): SONIC_PORTS.rows("APPL_DB", "LAG_TABLE"),
    ("APPL_DB", "LAG_MEMBER_TABLE"): {
        "PortChannel0001:Ethernet112": {"status": "disabled"}, "PortChannel0002:Ethernet116": {"status": "enabled"},
        "PortChannel0003:Ethernet120": {"status": "enabled"}, "PortChannel0004:Ethernet124": {"status": "enabled"},
    },
    ("STATE_DB", "LAG_TABLE"): {f"PortChannel000{n}": {"state": "ok", "runner.active": "true"} for n in range(1, 5)},
    ("STATE_DB", "LAG_MEMBER_TABLE"): {
        "PortChannel0001|Ethernet112": {"runner.aggregator.selected": "false"},
        "PortChannel0002|Ethernet116": {"runner.aggregator.selected": "true"},
        "PortChannel0003|Ethernet120": {"runner.aggregator.selected": "true"},
    },
})

SONIC_PORTCHANNEL = """\
Flags: A - active, I - inactive, Up - up, Dw - Down, N/A - not available,
       S - selected, D - deselected, * - not synced
  No.  Team Dev         Protocol     Ports
-----  ---------------  -----------  --------------
 0001  PortChannel0001  LACP(A)(Dw)  Ethernet112(D)
 0002  PortChannel0002  LACP(A)(Up)  Ethernet116(S)
 0003  PortChannel0003  LACP(A)(Up)  Ethernet120(S)
 0004  PortChannel0004  LACP(A)(Up)  N/A
 1001  PortChannel1001  N/A
"""


def test_show_interfaces_portchannel_lists_teamds_members_only() -> None:
    # PortChannel0004: teamsyncd has Ethernet124 in APPL_DB, teamd reports no member in STATE_DB -> N/A.
    assert render.portchannel_table(render.portchannel_summary(SONIC_LAGS)) + "\n" == SONIC_PORTCHANNEL


# ---- show pfcwd config (pfcwd_input/pfcwd_test_vectors.py: pfcwd_show_config_output) -----------

SONIC_PFCWD = Counters(
    {"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1000000000002", "Ethernet4": "oid:0x1000000000004",
                                "Ethernet8": "oid:0x1000000000006"}},
    {},
    Snapshot({("CONFIG_DB", "PFC_WD"): {
        **{port: {"action": "drop", "detection_time": "600", "restoration_time": "600", "pfc_stat_history": "disable"}
           for port in ("Ethernet0", "Ethernet4", "Ethernet8")},
        "GLOBAL": {"POLL_INTERVAL": "600"},
    }}),
)

SONIC_PFCWD_CONFIG = """\
Changed polling interval to 600ms
     PORT    ACTION    DETECTION TIME    RESTORATION TIME    HISTORY
---------  --------  ----------------  ------------------  ---------
Ethernet0      drop               600                 600    disable
Ethernet4      drop               600                 600    disable
Ethernet8      drop               600                 600    disable
"""


def test_show_pfcwd_config_has_the_history_column() -> None:
    assert pfcwd.config_text(SONIC_PFCWD) + "\n" == SONIC_PFCWD_CONFIG


def test_pfcwd_history_defaults_to_disable_and_stays_out_of_json() -> None:
    snap = Snapshot({("CONFIG_DB", "PFC_WD"): {"Ethernet0": {"action": "forward", "pfc_stat_history": "enable"},
                                               "Ethernet4": {"action": "drop"}}})
    c = Counters({"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1", "Ethernet4": "oid:0x2"}}, {}, snap)
    assert [row[-1] for row in pfcwd.config_rows(c)] == ["enable", "disable"]
    assert pfcwd.config_json(c)["ports"]["Ethernet0"] == {
        "ACTION": "forward", "DETECTION TIME": "N/A", "RESTORATION TIME": "infinite"}


# ---- show queue counters Ethernet8 (queue_counter_test.py: show_queue_counters_port) -----------

# Ethernet8's queues 0-9 unicast, 10-19 multicast (with counters), 20-29 "all" (none: N/A), as
# packets, bytes, dropped packets, dropped bytes.
ETHERNET8_QUEUES = (
    (0, 0, 0, 0), (38, 17, 68, 91), (16, 65, 79, 51), (11, 97, 63, 72), (54, 89, 62, 62), (13, 84, 30, 59),
    (49, 67, 99, 85), (2, 63, 38, 88), (0, 82, 93, 43), (80, 17, 91, 61), (81, 63, 76, 73), (29, 16, 29, 66),
    (32, 12, 61, 35), (79, 17, 72, 93), (23, 21, 67, 50), (37, 10, 97, 14), (30, 17, 74, 43), (0, 63, 54, 84),
    (69, 88, 24, 79), (20, 12, 84, 3),
)
QUEUE_TYPES = ["SAI_QUEUE_TYPE_UNICAST"] * 10 + ["SAI_QUEUE_TYPE_MULTICAST"] * 10 + ["SAI_QUEUE_TYPE_ALL"] * 10
STATS = ("SAI_QUEUE_STAT_PACKETS", "SAI_QUEUE_STAT_BYTES", "SAI_QUEUE_STAT_DROPPED_PACKETS",
         "SAI_QUEUE_STAT_DROPPED_BYTES")
SONIC_QUEUES = Counters(
    {"COUNTERS_PORT_NAME_MAP": {"Ethernet8": "oid:0x1000000000008"},
     "COUNTERS_QUEUE_NAME_MAP": {f"Ethernet8:{i}": f"oid:0x15000000000{i:02d}" for i in range(30)},
     "COUNTERS_QUEUE_PORT_MAP": {f"oid:0x15000000000{i:02d}": "oid:0x1000000000008" for i in range(30)},
     "COUNTERS_QUEUE_INDEX_MAP": {f"oid:0x15000000000{i:02d}": str(i) for i in range(30)},
     "COUNTERS_QUEUE_TYPE_MAP": {f"oid:0x15000000000{i:02d}": kind for i, kind in enumerate(QUEUE_TYPES)}},
    {"COUNTERS": {f"oid:0x15000000000{i:02d}": dict(zip(STATS, map(str, values), strict=True))
                  for i, values in enumerate(ETHERNET8_QUEUES)}},
)

SONIC_QUEUE_COUNTERS_PORT = """\
For namespace :
     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes
---------  -----  --------------  ---------------  -----------  ------------
Ethernet8    UC0               0                0            0             0
Ethernet8    UC1              38               17           68            91
Ethernet8    UC2              16               65           79            51
Ethernet8    UC3              11               97           63            72
Ethernet8    UC4              54               89           62            62
Ethernet8    UC5              13               84           30            59
Ethernet8    UC6              49               67           99            85
Ethernet8    UC7               2               63           38            88
Ethernet8    UC8               0               82           93            43
Ethernet8    UC9              80               17           91            61
Ethernet8   MC10              81               63           76            73
Ethernet8   MC11              29               16           29            66
Ethernet8   MC12              32               12           61            35
Ethernet8   MC13              79               17           72            93
Ethernet8   MC14              23               21           67            50
Ethernet8   MC15              37               10           97            14
Ethernet8   MC16              30               17           74            43
Ethernet8   MC17               0               63           54            84
Ethernet8   MC18              69               88           24            79
Ethernet8   MC19              20               12           84             3
Ethernet8  ALL20             N/A              N/A          N/A           N/A
Ethernet8  ALL21             N/A              N/A          N/A           N/A
Ethernet8  ALL22             N/A              N/A          N/A           N/A
Ethernet8  ALL23             N/A              N/A          N/A           N/A
Ethernet8  ALL24             N/A              N/A          N/A           N/A
Ethernet8  ALL25             N/A              N/A          N/A           N/A
Ethernet8  ALL26             N/A              N/A          N/A           N/A
Ethernet8  ALL27             N/A              N/A          N/A           N/A
Ethernet8  ALL28             N/A              N/A          N/A           N/A
Ethernet8  ALL29             N/A              N/A          N/A           N/A

"""


def test_show_queue_counters_heads_each_port_with_the_namespace_line() -> None:
    found = queuestat.queue_rows(SONIC_QUEUES, queuestat.COUNTERS, "Ethernet8")
    # the command echoes the text with nl=False
    assert queuestat.queue_text(found, queuestat.COUNTERS, queuestat.NAMESPACE_HEADING) == SONIC_QUEUE_COUNTERS_PORT


# ---- show ecn (ecn_input/ecn_test_vectors.py: ecn_show_config_output) -------------------------

SONIC_WRED_PROFILE = {"AZURE_LOSSLESS": {  # in the order the mock CONFIG_DB row lists (and Redis returns) them
    "red_max_threshold": "2097152", "wred_green_enable": "true", "ecn": "ecn_all", "green_min_threshold": "1048576",
    "red_min_threshold": "1048576", "wred_yellow_enable": "true", "yellow_min_threshold": "1048576",
    "green_max_threshold": "2097152", "green_drop_probability": "5", "yellow_max_threshold": "2097152",
    "wred_red_enable": "true", "yellow_drop_probability": "5", "red_drop_probability": "5",
}}

SONIC_ECN = """\
Profile: AZURE_LOSSLESS
-----------------------  -------
red_max_threshold        2097152
wred_green_enable        true
ecn                      ecn_all
green_min_threshold      1048576
red_min_threshold        1048576
wred_yellow_enable       true
yellow_min_threshold     1048576
green_max_threshold      2097152
green_drop_probability   5
yellow_max_threshold     2097152
wred_red_enable          true
yellow_drop_probability  5
red_drop_probability     5
-----------------------  -------

"""


def test_show_ecn_keeps_the_rows_field_order() -> None:
    assert ecn_text(SONIC_WRED_PROFILE) + "\n" == SONIC_ECN


# ---- show buffer configuration (mmuconfig_input/mmuconfig_test_vectors.py: show_mmu_config) ----

# The mock CONFIG_DB's rows in the order it lists them (and ConfigDBConnector returns them): mmuconfig
# keeps both that order and each row's field order.
SONIC_TRAFFIC_PATTERN = {"AZURE": {"default_dynamic_th": "0", "over_subscribe_ratio": "2"}}
SONIC_BUFFER_POOLS = {
    "egress_lossless_pool": {"mode": "dynamic", "size": "13945824", "type": "egress"},
    "egress_lossy_pool": {"mode": "dynamic", "type": "egress"},
    "ingress_lossless_pool": {"mode": "dynamic", "type": "ingress"},
    "ingress_lossy_pool": {"mode": "dynamic", "type": "ingress"},
    "ingress_lossless_pool_hbm": {"mode": "static", "size": "139458240", "type": "ingress"},
}
SONIC_BUFFER_PROFILES = {
    "ingress_lossy_profile": {"dynamic_th": "3", "pool": "ingress_lossy_pool", "size": "0"},
    "ingress_lossless_profile_hbm": {"static_th": "12121212", "pool": "ingress_lossless_pool_hbm", "size": "0"},
    "headroom_profile": {"dynamic_th": "0", "pool": "ingress_lossless_pool", "xon": "18432", "xoff": "32768",
                         "size": "51200"},
    "alpha_profile": {"dynamic_th": "0", "pool": "ingress_lossless_pool", "headroom_type": "dynamic"},
    "egress_lossless_profile": {"dynamic_th": "0", "pool": "egress_lossless_pool", "size": "0"},
    "egress_lossy_profile": {"dynamic_th": "0", "pool": "egress_lossy_pool", "size": "0"},
    "q_lossy_profile": {"packet_discard_action": "drop", "dynamic_th": "0", "pool": "egress_lossy_pool", "size": "0"},
}


SONIC_MMU_CONFIG = """\
Lossless traffic pattern:
--------------------  -
default_dynamic_th    0
over_subscribe_ratio  2
--------------------  -

Pool: egress_lossless_pool
----  --------
mode  dynamic
size  13945824
type  egress
----  --------

Pool: egress_lossy_pool
----  -------
mode  dynamic
type  egress
----  -------

Pool: ingress_lossless_pool
----  -------
mode  dynamic
type  ingress
----  -------

Pool: ingress_lossy_pool
----  -------
mode  dynamic
type  ingress
----  -------

Pool: ingress_lossless_pool_hbm
----  ---------
mode  static
size  139458240
type  ingress
----  ---------

Profile: ingress_lossy_profile
----------  ------------------
dynamic_th  3
pool        ingress_lossy_pool
size        0
----------  ------------------

Profile: ingress_lossless_profile_hbm
---------  -------------------------
static_th  12121212
pool       ingress_lossless_pool_hbm
size       0
---------  -------------------------

Profile: headroom_profile
----------  ---------------------
dynamic_th  0
pool        ingress_lossless_pool
xon         18432
xoff        32768
size        51200
----------  ---------------------

Profile: alpha_profile
-------------  ---------------------
dynamic_th     0
pool           ingress_lossless_pool
headroom_type  dynamic
-------------  ---------------------

Profile: egress_lossless_profile
----------  --------------------
dynamic_th  0
pool        egress_lossless_pool
size        0
----------  --------------------

Profile: egress_lossy_profile
----------  -----------------
dynamic_th  0
pool        egress_lossy_pool
size        0
----------  -----------------

Profile: q_lossy_profile
---------------------  -----------------
packet_discard_action  drop
dynamic_th             0
pool                   egress_lossy_pool
size                   0
---------------------  -----------------

"""


def test_show_buffer_configuration_is_mmuconfigs_list_in_the_databases_order() -> None:
    # the command echoes the text with nl=False
    assert buffer.configuration_text(SONIC_BUFFER_POOLS, SONIC_BUFFER_PROFILES, SONIC_TRAFFIC_PATTERN) \
        == SONIC_MMU_CONFIG


# ---- show buffer_pool / headroom-pool watermark (wm_input/wm_test_vectors.py) ----------------

SONIC_POOL_WATERMARKS = Counters(
    {"COUNTERS_BUFFER_POOL_NAME_MAP": {"egress_lossless_pool": "oid:0x18000000000b64",
                                       "egress_lossy_pool": "oid:0x18000000000b65",
                                       "ingress_lossless_pool": "oid:0x18000000000b66"}},
    {"USER_WATERMARKS": {
        "oid:0x18000000000b64": {"SAI_BUFFER_POOL_STAT_WATERMARK_BYTES": "1000"},
        "oid:0x18000000000b65": {"SAI_BUFFER_POOL_STAT_WATERMARK_BYTES": "2000"},
        "oid:0x18000000000b66": {"SAI_BUFFER_POOL_STAT_WATERMARK_BYTES": "3000",
                                 "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES": "432640"}}},
)

SONIC_BUFFER_POOL_WM = """\
Shared pool maximum occupancy:
                 Pool    Bytes
---------------------  -------
 egress_lossless_pool     1000
    egress_lossy_pool     2000
ingress_lossless_pool     3000
"""

SONIC_HEADROOM_POOL_WM = """\
Headroom pool maximum occupancy:
                 Pool    Bytes
---------------------  -------
ingress_lossless_pool   432640
"""


def test_show_buffer_pool_watermark_lists_every_pool() -> None:
    title, stat = buffer.KINDS["buffer_pool"]
    rows = buffer.pool_rows(SONIC_POOL_WATERMARKS, "USER_WATERMARKS", stat)
    assert buffer.pool_text(title, rows) + "\n" == SONIC_BUFFER_POOL_WM


def test_show_headroom_pool_watermark_shows_only_the_ingress_lossless_pool() -> None:
    title, stat = buffer.KINDS["headroom_pool"]
    rows = buffer.pool_rows(SONIC_POOL_WATERMARKS, "USER_WATERMARKS", stat, headroom=True)
    assert buffer.pool_text(title, rows) + "\n" == SONIC_HEADROOM_POOL_WM


# ---- show priority-group watermark / persistent-watermark / drop counters, show queue watermark ----
# (wm_input/wm_test_vectors.py: show_pg_wm_shared_output, show_pg_persistent_wm_hdrm_output,
# show_queue_wm_unicast_output, show_queue_wm_multicast_output; pgdropstat_test.py:
# show_pg_dropped_packet_stat). The mock COUNTERS_DB's three ports with 8 PGs each: PG n of a port
# holds base + n, the bases per port in USER_WATERMARKS, PERSISTENT_WATERMARKS and the drop counter.

PG_BASES = {"Ethernet0": (100, 200, 800), "Ethernet4": (400, 500, 400), "Ethernet8": (800, 900, 100)}
PG_SHARED, PG_HEADROOM = ("SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES",
                          "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES")
PORT_OIDS = {"Ethernet0": "oid:0x1000000000012", "Ethernet4": "oid:0x1000000000013", "Ethernet8": "oid:0x1000000000014"}


def _pg_oid(port: str, pg: int) -> str:
    return f"oid:0x1a{list(PORT_OIDS).index(port):02d}0000000{pg}"


def _pg_stats(position: int, *names: str) -> dict[str, dict[str, str]]:
    return {_pg_oid(port, pg): dict.fromkeys(names, str(bases[position] + pg))
            for port, bases in PG_BASES.items() for pg in range(8)}


SONIC_PGS = Counters(
    {"COUNTERS_PORT_NAME_MAP": PORT_OIDS,
     "COUNTERS_PG_NAME_MAP": {f"{port}:{pg}": _pg_oid(port, pg) for port in PORT_OIDS for pg in range(8)},
     "COUNTERS_PG_PORT_MAP": {_pg_oid(port, pg): oid for port, oid in PORT_OIDS.items() for pg in range(8)},
     "COUNTERS_PG_INDEX_MAP": {_pg_oid(port, pg): str(pg) for port in PORT_OIDS for pg in range(8)}},
    {"USER_WATERMARKS": _pg_stats(0, PG_SHARED, PG_HEADROOM),
     "PERSISTENT_WATERMARKS": _pg_stats(1, PG_SHARED, PG_HEADROOM),
     "COUNTERS": _pg_stats(2, "SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS")},
)

PG_HEADER = """\
     Port    PG0    PG1    PG2    PG3    PG4    PG5    PG6    PG7
---------  -----  -----  -----  -----  -----  -----  -----  -----
"""
SONIC_PG_WM_SHARED = "Ingress shared pool occupancy per PG:\n" + PG_HEADER + """\
Ethernet0    100    101    102    103    104    105    106    107
Ethernet4    400    401    402    403    404    405    406    407
Ethernet8    800    801    802    803    804    805    806    807
"""
SONIC_PG_PWM_HEADROOM = "Ingress headroom per PG:\n" + PG_HEADER + """\
Ethernet0    200    201    202    203    204    205    206    207
Ethernet4    500    501    502    503    504    505    506    507
Ethernet8    900    901    902    903    904    905    906    907
"""
SONIC_PG_DROPS = "Ingress PG dropped packets:\n" + PG_HEADER + """\
Ethernet0    800    801    802    803    804    805    806    807
Ethernet4    400    401    402    403    404    405    406    407
Ethernet8    100    101    102    103    104    105    106    107
"""


def _grid_text(c: Counters, kind: str, table: str) -> str:
    return watermark.grid(c, watermark.KINDS[kind], table).text(watermark.KINDS[kind].title) + "\n"


def test_show_priority_group_watermark_shared() -> None:
    assert _grid_text(SONIC_PGS, "pg_shared", "USER_WATERMARKS") == SONIC_PG_WM_SHARED


def test_show_priority_group_persistent_watermark_headroom() -> None:
    assert _grid_text(SONIC_PGS, "pg_headroom", "PERSISTENT_WATERMARKS") == SONIC_PG_PWM_HEADROOM


def test_show_priority_group_drop_counters() -> None:
    assert _grid_text(SONIC_PGS, "pg_drop", "COUNTERS") == SONIC_PG_DROPS


# Unicast queues 0-9 of each port with their USER_WATERMARKS; multicast queues 10-19 without any.
UC_WATERMARKS = {
    "Ethernet0": (2057328, 2056704, 0, 0, 0, 0, 0, 2704, 416, 20),
    "Ethernet4": (0, 0, 0, 1986, 2567, 0, 0, 0, 0, 0),
    "Ethernet8": (0, 0, 1040, 0, 0, 0, 0, 0, 8528, 7696),
}


def _q_oid(port: str, queue: int) -> str:
    return f"oid:0x15{list(PORT_OIDS).index(port):02d}000000{queue:02d}"


SONIC_QUEUE_WATERMARKS = Counters(
    {"COUNTERS_PORT_NAME_MAP": PORT_OIDS,
     "COUNTERS_QUEUE_NAME_MAP": {f"{port}:{q}": _q_oid(port, q) for port in PORT_OIDS for q in range(20)},
     "COUNTERS_QUEUE_PORT_MAP": {_q_oid(port, q): oid for port, oid in PORT_OIDS.items() for q in range(20)},
     "COUNTERS_QUEUE_INDEX_MAP": {_q_oid(port, q): str(q) for port in PORT_OIDS for q in range(20)},
     "COUNTERS_QUEUE_TYPE_MAP": {_q_oid(port, q): "SAI_QUEUE_TYPE_UNICAST" if q < 10 else "SAI_QUEUE_TYPE_MULTICAST"
                                 for port in PORT_OIDS for q in range(20)}},
    {"USER_WATERMARKS": {_q_oid(port, q): {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": str(value)}
                         for port, values in UC_WATERMARKS.items() for q, value in enumerate(values)}},
)

SONIC_QUEUE_WM_UNICAST = """\
Egress shared pool occupancy per unicast queue:
     Port      UC0      UC1    UC2    UC3    UC4    UC5    UC6    UC7    UC8    UC9
---------  -------  -------  -----  -----  -----  -----  -----  -----  -----  -----
Ethernet0  2057328  2056704      0      0      0      0      0   2704    416     20
Ethernet4        0        0      0   1986   2567      0      0      0      0      0
Ethernet8        0        0   1040      0      0      0      0      0   8528   7696
"""

SONIC_QUEUE_WM_MULTICAST = """\
Egress shared pool occupancy per multicast queue:
     Port    MC10    MC11    MC12    MC13    MC14    MC15    MC16    MC17    MC18    MC19
---------  ------  ------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A
Ethernet4     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A
Ethernet8     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A     N/A
"""


def test_show_queue_watermark_unicast_and_multicast() -> None:
    assert _grid_text(SONIC_QUEUE_WATERMARKS, "q_shared_uni", "USER_WATERMARKS") == SONIC_QUEUE_WM_UNICAST
    assert _grid_text(SONIC_QUEUE_WATERMARKS, "q_shared_multi", "USER_WATERMARKS") == SONIC_QUEUE_WM_MULTICAST


def test_show_queue_watermark_all_without_all_queues_is_an_empty_object_map() -> None:
    with pytest.raises(watermark.EmptyObjectMap) as found:
        watermark.grid(SONIC_QUEUE_WATERMARKS, watermark.KINDS["q_shared_all"], "USER_WATERMARKS")
    assert (str(found.value), found.value.error) == ("Object map is empty!", True)


# ---- show pfc counters (pfcstat_test.py: show_pfc_counters_output) ---------------------------
# The mock COUNTERS_DB's PFC frames: RX PFC0 of a port holds its first number, RX PFC n its base + n; TX is
# RX + 10.

PFC_BASES = {"Ethernet0": (1200, 200), "Ethernet4": (1400, 400), "Ethernet8": (1800, 800)}


def _pfc_stats(first: int, base: int) -> dict[str, str]:
    stats = {}
    for direction, offset in (("RX", 0), ("TX", 10)):
        for n in range(8):
            stats[f"SAI_PORT_STAT_PFC_{n}_{direction}_PKTS"] = str((first if n == 0 else base + n) + offset)
    return stats


SONIC_PFC = Counters({"COUNTERS_PORT_NAME_MAP": PORT_OIDS},
                     {"COUNTERS": {PORT_OIDS[port]: _pfc_stats(*bases) for port, bases in PFC_BASES.items()}})

SONIC_PFC_COUNTERS = """\
  Port Rx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0   1,200     201     202     203     204     205     206     207
Ethernet4   1,400     401     402     403     404     405     406     407
Ethernet8   1,800     801     802     803     804     805     806     807

  Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7
---------  ------  ------  ------  ------  ------  ------  ------  ------
Ethernet0   1,210     211     212     213     214     215     216     217
Ethernet4   1,410     411     412     413     414     415     416     417
Ethernet8   1,810     811     812     813     814     815     816     817
"""


def test_show_pfc_counters() -> None:
    assert pfc.pfc_text(SONIC_PFC) + "\n" == SONIC_PFC_COUNTERS


# ---- show pfc priority / asymmetric (pfc_input/assert_show_output.py) ------------------------

SONIC_PFC_CONFIG = Snapshot({
    ("CONFIG_DB", "PORT_QOS_MAP"): {"Ethernet0": {"pfc_enable": "3,4", "scheduler": "port_scheduler"},
                                    "Ethernet4": {"pfc_enable": "3,4"}},
    ("CONFIG_DB", "PORT"): {f"Ethernet{n}": {"pfc_asym": "off"} for n in range(0, 128, 4)},
})

SONIC_PFC_PRIORITY_ALL = """\

Interface    Lossless priorities
-----------  ---------------------
Ethernet0    3,4
Ethernet4    3,4

"""

SONIC_PFC_ASYMMETRIC_ALL = "\nInterface    Asymmetric\n-----------  ------------\n" + "".join(
    f"{f'Ethernet{n}':<11}  off\n" for n in range(0, 128, 4)) + "\n"
SONIC_PFC_ASYMMETRIC_INTF = "\nInterface    Asymmetric\n-----------  ------------\nEthernet0    off\n\n"
SONIC_PFC_ASYMMETRIC_UNKNOWN = "\nInterface    Asymmetric\n-----------  ------------\n\n"


def _framed(text: str) -> str:
    return "\n" + text + "\n\n"  # pfc echoes the (empty) namespace line, the table, an empty line


def test_show_pfc_priority() -> None:
    assert _framed(pfc.priority_text(pfc.lossless_priorities(SONIC_PFC_CONFIG))) == SONIC_PFC_PRIORITY_ALL


def test_show_pfc_asymmetric() -> None:
    assert _framed(pfc.asymmetric_text(pfc.asymmetric_pfc(SONIC_PFC_CONFIG))) == SONIC_PFC_ASYMMETRIC_ALL
    assert _framed(pfc.asymmetric_text(pfc.asymmetric_pfc(SONIC_PFC_CONFIG, "Ethernet0"))) \
        == SONIC_PFC_ASYMMETRIC_INTF
    assert _framed(pfc.asymmetric_text(pfc.asymmetric_pfc(SONIC_PFC_CONFIG, "Ethernet1234"))) \
        == SONIC_PFC_ASYMMETRIC_UNKNOWN


# ---- show vlan config (vlan_test.py: show_vlan_config_output) --------------------------------

SONIC_VLAN_CONFIG = """\
Name        VID  Member           Mode
--------  -----  ---------------  --------
Vlan1000   1000  Ethernet4        untagged
Vlan1000   1000  Ethernet8        untagged
Vlan1000   1000  Ethernet12       untagged
Vlan1000   1000  Ethernet16       untagged
Vlan2000   2000  Ethernet24       untagged
Vlan2000   2000  Ethernet28       untagged
Vlan3000   3000
Vlan4000   4000  PortChannel1001  tagged
"""


def test_show_vlan_config() -> None:
    assert render.vlan_config_table(render.vlan_config(SONIC_VLANS)) + "\n" == SONIC_VLAN_CONFIG


# ---- show mac (fdbshow_test.py: show_mac_output, on fdbshow_input's ASIC_DB and COUNTERS_DB) ---

FDB_ROWS = (  # (bvid or vlan, mac, bridge port, type), in the mock ASIC_DB's order
    ("oid:0x260000000005c5", "11:22:33:44:55:66", "oid:0x3a0000000005cb", "DYNAMIC"),
    ("oid:0x260000000006c6", "11:22:33:66:55:44", "oid:0x3a0000000006cd", "STATIC"),
    ("oid:0x260000000007c7", "66:55:44:33:22:11", "oid:0x3a0000000005cb", "DYNAMIC"),
    ("oid:0x260000000007c7", "77:55:44:33:22:11", "oid:0x3a000000000fff", "DYNAMIC"),  # no such bridge port
    ("oid:0x260000000007c7", "77:66:44:33:22:11", "oid:0x3a0000000007ef", "DYNAMIC"),  # its port is unnamed
    ("5", "77:66:55:44:22:11", "oid:0x3a0000000006cd", "DYNAMIC"),
)


def _fdb_key(vlan: str, address: str) -> str:
    where = {"bvid": vlan} if vlan.startswith("oid:") else {"vlan": vlan}
    return json.dumps({**where, "mac": address, "switch_id": "oid:0x21000000000000"}, separators=(",", ":"))


SONIC_FDB = Snapshot({
    ("ASIC_DB", mac.FDB_TABLE): {
        _fdb_key(vlan, address): {"SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID": bridge_port,
                                  "SAI_FDB_ENTRY_ATTR_TYPE": f"SAI_FDB_ENTRY_TYPE_{kind}"}
        for vlan, address, bridge_port, kind in FDB_ROWS},
    ("ASIC_DB", mac.BRIDGE_PORT_TABLE): {
        "oid:0x3a0000000005cb": {"SAI_BRIDGE_PORT_ATTR_PORT_ID": "oid:0x1000000000528"},
        "oid:0x3a0000000006cd": {"SAI_BRIDGE_PORT_ATTR_PORT_ID": "oid:0x1000000000549"},
        "oid:0x3a0000000007ef": {"SAI_BRIDGE_PORT_ATTR_PORT_ID": "oid:0x1000000000fff"},
    },
    ("ASIC_DB", mac.VLAN_TABLE): {"oid:0x260000000005c5": {"SAI_VLAN_ATTR_VLAN_ID": "2"},
                                  "oid:0x260000000006c6": {"SAI_VLAN_ATTR_VLAN_ID": "3"},
                                  "oid:0x260000000007c7": {"SAI_VLAN_ATTR_VLAN_ID": "4"}},
})
FDB_PORT_NAMES = {"oid:0x1000000000528": "Ethernet0", "oid:0x1000000000549": "Ethernet4",
                  "oid:0x1000000000550": "Ethernet8"}

SONIC_MAC = """\
  No.    Vlan  MacAddress         Port           Type
-----  ------  -----------------  -------------  -------
    1       2  11:22:33:44:55:66  Ethernet0      Dynamic
    2       3  11:22:33:66:55:44  Ethernet4      Static
    3       4  66:55:44:33:22:11  Ethernet0      Dynamic
    4       4  77:66:44:33:22:11  1000000000fff  Dynamic
    5       5  77:66:55:44:22:11  Ethernet4      Dynamic
Total number of entries 5
"""


def test_show_mac_prints_an_unnamed_port_oid_bare() -> None:
    assert mac.fdb_text(mac.fdb_entries(SONIC_FDB, FDB_PORT_NAMES)) + "\n" == SONIC_MAC


# ---- show pfcwd stats (pfcwd_input/pfcwd_test_vectors.py: pfcwd_show_stats_output) ------------

PFCWD_FIELDS = ("PFC_WD_STATUS", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED",
                "PFC_WD_QUEUE_STATS_TX_PACKETS", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS",
                "PFC_WD_QUEUE_STATS_RX_PACKETS", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS",
                "PFC_WD_QUEUE_STATS_TX_PACKETS_LAST", "PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS_LAST",
                "PFC_WD_QUEUE_STATS_RX_PACKETS_LAST", "PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS_LAST")
PFCWD_QUEUES = {  # the mock COUNTERS_DB's watchdog queues, and one queue without watchdog counters
    "Ethernet0:3": ("stormed", "1", "0", "100", "300", "100", "300", "0", "200", "0", "200"),
    "Ethernet4:3": ("operational", "2", "2", "100", "100", "100", "100", "0", "0", "0", "0"),
    "Ethernet8:4": ("stormed", "3", "2", "100", "300", "100", "300", "0", "200", "0", "200"),
    "Ethernet8:5": (),
}
SONIC_PFCWD_STATS = Counters(
    {"COUNTERS_QUEUE_NAME_MAP": {queue: f"oid:0x15{i:014x}" for i, queue in enumerate(PFCWD_QUEUES)}},
    {"COUNTERS": {f"oid:0x15{i:014x}": {"SAI_QUEUE_STAT_PACKETS": "1", **dict(zip(PFCWD_FIELDS, values, strict=False))}
                  for i, values in enumerate(PFCWD_QUEUES.values())}},
)

SONIC_PFCWD_STATS_ALL = """\
      QUEUE       STATUS    STORM DETECTED/RESTORED    TX OK/DROP    RX OK/DROP    TX LAST OK/DROP    RX LAST OK/DROP
-----------  -----------  -------------------------  ------------  ------------  -----------------  -----------------
Ethernet0:3      stormed                        1/0       100/300       100/300              0/200              0/200
Ethernet4:3  operational                        2/2       100/100       100/100                0/0                0/0
Ethernet8:4      stormed                        3/2       100/300       100/300              0/200              0/200
"""  # noqa: E501


def test_show_pfcwd_stats_leaves_out_queues_without_watchdog_counters() -> None:
    assert pfcwd.stats_text(pfcwd.stats_rows(SONIC_PFCWD_STATS)) + "\n" == SONIC_PFCWD_STATS_ALL


# ---- show ip interfaces (show_ip_int_test.py: show_ipv4_intf_with_multple_ips) ----------------
# ipintutil reads the kernel (eth0 and lo, link-local IPv6 addresses, /sys flags: "error/down" in the
# test's sandbox); we read the databases. The layout is compared with the kernel's columns taken from
# the databases: the same interfaces and addresses, Admin/Oper as APPL_DB holds them.

SONIC_IP_INTERFACES = Snapshot({
    ("CONFIG_DB", "INTERFACE"): {"Ethernet0": {}, "Ethernet0|20.1.1.1/24": {}, "Ethernet0|21.1.1.1/24": {}},
    ("CONFIG_DB", "PORTCHANNEL_INTERFACE"): {"PortChannel0001|30.1.1.1/24": {}},
    ("CONFIG_DB", "VLAN_INTERFACE"): {"Vlan100|40.1.1.1/24": {}},
    ("CONFIG_DB", "BGP_NEIGHBOR"): {"20.1.1.5": {"name": "T2-Peer", "local_addr": "20.1.1.1"},
                                    "30.1.1.5": {"name": "T0-Peer", "local_addr": "30.1.1.1"}},
    ("APPL_DB", "PORT_TABLE"): {"Ethernet0": {"admin_status": "up", "oper_status": "down"}},
    ("APPL_DB", "LAG_TABLE"): {"PortChannel0001": {"admin_status": "up", "oper_status": "down"}},
    ("APPL_DB", "VLAN_TABLE"): {"Vlan100": {"admin_status": "up"}},
})

SONIC_IP_INTERFACES_TEXT = """\
Interface        Master    IPv4 address/mask    Admin/Oper    BGP Neighbor    Neighbor IP
---------------  --------  -------------------  ------------  --------------  -------------
Ethernet0                  20.1.1.1/24          error/down    T2-Peer         20.1.1.5
                           21.1.1.1/24                        N/A             N/A
PortChannel0001            30.1.1.1/24          error/down    T0-Peer         30.1.1.5
Vlan100                    40.1.1.1/24          error/down    N/A             N/A"""


def test_show_ip_interfaces_layout() -> None:
    text = render.ip_interfaces_table(render.ip_interfaces(SONIC_IP_INTERFACES, 4), 4)
    assert text == SONIC_IP_INTERFACES_TEXT.replace("error/down", "up/down   ")


# ---- show interfaces counters [-a] (portstat_test.py: intf_counters_before_clear, intf_counters_all,
# on its portstat_db COUNTERS_DB and the mock APPL_DB / STATE_DB) ----------------------------------

PORTSTAT_PORTS = {"Ethernet0": "oid:0x1000000000012", "Ethernet4": "oid:0x1000000000013",
                  "Ethernet8": "oid:0x1000000000014", "Ethernet9": "oid:0x1000000000015"}
PORTSTAT_FIELDS = ("IF_IN_UCAST_PKTS", "IF_IN_NON_UCAST_PKTS", "IF_IN_ERRORS", "IF_IN_DISCARDS", "IF_OUT_UCAST_PKTS",
                   "IF_OUT_NON_UCAST_PKTS", "TRIM_PACKETS", "TX_TRIM_PACKETS", "DROPPED_TRIM_PACKETS")
PORTSTAT_COUNTERS = {  # no oversize, TX error or TX discard counters anywhere; Ethernet9 has no trimming ones
    "Ethernet0": ("8", "0", "10", "100", "10", "0", "0", "0", "0"),
    "Ethernet4": ("4", "0", "0", "1000", "40", "0", "100", "50", "50"),
    "Ethernet8": ("6", "0", "100", "10", "60", "0", "20000", "10000", "10000"),
    "Ethernet9": ("0", "0", "0", "0", "0", "0"),
}
PORTSTAT_RATES = {  # RX_BPS, RX_PPS, TX_BPS, TX_PPS as the mock spells them
    "Ethernet0": ("2.e9", "247.e3", "1.5e9", "183.e3"), "Ethernet4": ("204800", "200", "204848", "201"),
    "Ethernet8": ("1.35e6", "9000", "13.37e6", "9000"), "Ethernet9": ("0", "0", "0", "0"),
}
SONIC_PORTSTAT = Counters(
    {"COUNTERS_PORT_NAME_MAP": PORTSTAT_PORTS},
    {"COUNTERS": {PORTSTAT_PORTS[port]: {f"SAI_PORT_STAT_{name}": value
                                         for name, value in zip(PORTSTAT_FIELDS, values, strict=False)}
                  for port, values in PORTSTAT_COUNTERS.items()},
     "RATES": {PORTSTAT_PORTS[port]: dict(zip(("RX_BPS", "RX_PPS", "TX_BPS", "TX_PPS"), values, strict=True))
               for port, values in PORTSTAT_RATES.items()}},
    Snapshot({("APPL_DB", "PORT_TABLE"): {"Ethernet0": {"admin_status": "up", "oper_status": "down",
                                                        "speed": "25000"}},
              ("STATE_DB", "PORT_TABLE"): {"Ethernet0": {"speed": "100000"}}}),  # oper down: APPL_DB's speed
)

SONIC_INTF_COUNTERS = """\
    IFACE    STATE    RX_OK        RX_BPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK        TX_BPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR
---------  -------  -------  ------------  ---------  --------  --------  --------  -------  ------------  ---------  --------  --------  --------
Ethernet0        D        8  2000.00 MB/s     64.00%        10       100       N/A       10  1500.00 MB/s     48.00%       N/A       N/A       N/A
Ethernet4      N/A        4   204.80 KB/s        N/A         0     1,000       N/A       40   204.85 KB/s        N/A       N/A       N/A       N/A
Ethernet8      N/A        6  1350.00 KB/s        N/A       100        10       N/A       60    13.37 MB/s        N/A       N/A       N/A       N/A
Ethernet9      N/A        0      0.00 B/s        N/A         0         0       N/A        0      0.00 B/s        N/A       N/A       N/A       N/A
"""  # noqa: E501

SONIC_INTF_COUNTERS_ALL = """\
    IFACE    STATE    RX_OK        RX_BPS       RX_PPS    RX_UTIL    RX_ERR    RX_DRP    RX_OVR    TX_OK        TX_BPS       TX_PPS    TX_UTIL    TX_ERR    TX_DRP    TX_OVR    TRIM    TRIM_TX    TRIM_DRP
---------  -------  -------  ------------  -----------  ---------  --------  --------  --------  -------  ------------  -----------  ---------  --------  --------  --------  ------  ---------  ----------
Ethernet0        D        8  2000.00 MB/s  247000.00/s     64.00%        10       100       N/A       10  1500.00 MB/s  183000.00/s     48.00%       N/A       N/A       N/A       0          0           0
Ethernet4      N/A        4   204.80 KB/s     200.00/s        N/A         0     1,000       N/A       40   204.85 KB/s     201.00/s        N/A       N/A       N/A       N/A     100         50          50
Ethernet8      N/A        6  1350.00 KB/s    9000.00/s        N/A       100        10       N/A       60    13.37 MB/s    9000.00/s        N/A       N/A       N/A       N/A  20,000     10,000      10,000
Ethernet9      N/A        0      0.00 B/s       0.00/s        N/A         0         0       N/A        0      0.00 B/s       0.00/s        N/A       N/A       N/A       N/A     N/A        N/A         N/A
"""  # noqa: E501


def test_show_interfaces_counters() -> None:
    rows = portstat.port_table(SONIC_PORTSTAT)
    assert portstat.table_text(portstat.HEADER_STD, rows) + "\n" == SONIC_INTF_COUNTERS


def test_show_interfaces_counters_printall_has_the_trimming_counters() -> None:
    rows = portstat.port_table(SONIC_PORTSTAT, "all")
    assert portstat.table_text(portstat.HEADER_ALL, rows) + "\n" == SONIC_INTF_COUNTERS_ALL


# ---- show queue wredcounters Ethernet8 -nz (wred_queue_counter_test.py: show_wred_queue_counters_port_nz)
# The mock COUNTERS_DB holds Ethernet8's queue numbers for the WRED stats too; its ALL queues have none.

WRED_STATS = ("SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "SAI_QUEUE_STAT_WRED_DROPPED_BYTES",
              "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES")
SONIC_WRED = Counters(SONIC_QUEUES.maps, {"COUNTERS": {
    f"oid:0x15000000000{i:02d}": dict(zip(WRED_STATS, map(str, values), strict=True))
    for i, values in enumerate(ETHERNET8_QUEUES)}})

SONIC_WRED_PORT_NZ = """\
     Port    TxQ    WredDrp/pkts    WredDrp/bytes    EcnMarked/pkts    EcnMarked/bytes
---------  -----  --------------  ---------------  ----------------  -----------------
Ethernet8    UC1              38               17                68                 91
Ethernet8    UC2              16               65                79                 51
Ethernet8    UC3              11               97                63                 72
Ethernet8    UC4              54               89                62                 62
Ethernet8    UC5              13               84                30                 59
Ethernet8    UC6              49               67                99                 85
Ethernet8    UC7               2               63                38                 88
Ethernet8    UC8               0               82                93                 43
Ethernet8    UC9              80               17                91                 61
Ethernet8   MC10              81               63                76                 73
Ethernet8   MC11              29               16                29                 66
Ethernet8   MC12              32               12                61                 35
Ethernet8   MC13              79               17                72                 93
Ethernet8   MC14              23               21                67                 50
Ethernet8   MC15              37               10                97                 14
Ethernet8   MC16              30               17                74                 43
Ethernet8   MC17               0               63                54                 84
Ethernet8   MC18              69               88                24                 79
Ethernet8   MC19              20               12                84                  3

"""


def test_show_queue_wredcounters_nonzero_counts_na_as_zero() -> None:
    found = queuestat.queue_rows(SONIC_WRED, queuestat.WRED, "Ethernet8", nonzero=True, zero=queuestat.WRED_ZERO)
    # the command echoes the text with nl=False; wredstat has no namespace line
    assert queuestat.queue_text(found, queuestat.WRED) == SONIC_WRED_PORT_NZ


SONIC_INTF_RATES = """\
    IFACE    STATE    RX_OK        RX_BPS       RX_PPS    RX_UTIL    TX_OK        TX_BPS       TX_PPS    TX_UTIL
---------  -------  -------  ------------  -----------  ---------  -------  ------------  -----------  ---------
Ethernet0        D        8  2000.00 MB/s  247000.00/s     64.00%       10  1500.00 MB/s  183000.00/s     48.00%
Ethernet4      N/A        4   204.80 KB/s     200.00/s        N/A       40   204.85 KB/s     201.00/s        N/A
Ethernet8      N/A        6  1350.00 KB/s    9000.00/s        N/A       60    13.37 MB/s    9000.00/s        N/A
Ethernet9      N/A        0      0.00 B/s       0.00/s        N/A        0      0.00 B/s       0.00/s        N/A
"""


def test_show_interfaces_counters_rates() -> None:  # portstat_test.py: intf_rates (portstat -R)
    rows = portstat.port_table(SONIC_PORTSTAT, "rates")
    assert portstat.table_text(portstat.HEADER_RATES, rows) + "\n" == SONIC_INTF_RATES


# ---- show pfc counters --history (pfcstat_input/assert_show_output.py: show_pfc_counters_history_output,
# its Ethernet0 block; the mock keeps the history in EST_ stats; pfcstat prints local time, the test's UTC)

PFC_HISTORY_STATS = {
    **{f"EST_PORT_STAT_PFC_{n}_{name}": str(value) for n in range(1, 8) for name, value in (
        ("ON2OFF_RX_PKTS", 20 + n), ("RX_PAUSE_DURATION_US", 20_000_000 + n), ("RECENT_PAUSE_TIME_US", 2_000_000 + n),
        ("RECENT_PAUSE_TIMESTAMP", 2_000_000_000_000_000 + n))},
    "EST_PORT_STAT_PFC_0_ON2OFF_RX_PKTS": "12", "EST_PORT_STAT_PFC_0_RX_PAUSE_DURATION_US": "12000000",
    "EST_PORT_STAT_PFC_0_RECENT_PAUSE_TIME_US": "1200000",
    "EST_PORT_STAT_PFC_0_RECENT_PAUSE_TIMESTAMP": "1200000000000000",
}
SONIC_PFC_HISTORY = Counters({"COUNTERS_PORT_NAME_MAP": {"Ethernet0": PORT_OIDS["Ethernet0"]}},
                             {"COUNTERS": {PORT_OIDS["Ethernet0"]: PFC_HISTORY_STATS}})

SONIC_PFC_HISTORY_TEXT = """\
     Port    Priority    RX Pause Transitions    Total RX Pause Time US    Recent RX Pause Time US    Recent RX Pause Timestamp
---------  ----------  ----------------------  ------------------------  -------------------------  ---------------------------
Ethernet0        PFC0                      12                12,000,000                  1,200,000         01/10/2008, 21:20:00
Ethernet0        PFC1                      21                20,000,001                  2,000,001         05/18/2033, 03:33:20
Ethernet0        PFC2                      22                20,000,002                  2,000,002         05/18/2033, 03:33:20
Ethernet0        PFC3                      23                20,000,003                  2,000,003         05/18/2033, 03:33:20
Ethernet0        PFC4                      24                20,000,004                  2,000,004         05/18/2033, 03:33:20
Ethernet0        PFC5                      25                20,000,005                  2,000,005         05/18/2033, 03:33:20
Ethernet0        PFC6                      26                20,000,006                  2,000,006         05/18/2033, 03:33:20
Ethernet0        PFC7                      27                20,000,007                  2,000,007         05/18/2033, 03:33:20

"""  # noqa: E501


def test_show_pfc_counters_history() -> None:
    rows = pfc.history_rows(SONIC_PFC_HISTORY, datetime.UTC)
    assert pfc.history_text(rows) + "\n" == SONIC_PFC_HISTORY_TEXT


def test_pfc_history_is_na_without_counters() -> None:
    c = Counters({"COUNTERS_PORT_NAME_MAP": {"Ethernet0": "oid:0x1"}})
    assert pfc.history_rows(c)[0] == ["Ethernet0", "PFC0", "N/A", "N/A", "N/A", "N/A"]
    assert pfc.history_json(pfc.history_rows(c))["Ethernet0"]["PFC7"]["Recent RX Pause Timestamp"] == "N/A"


# ---- show queue counters --trim Ethernet4 (queuestat_input/assert_show_output.py: trim_eth4_counters) ---
# Ethernet4's 30 queues in the mock COUNTERS_DB: trimming counters on UC0 (all 0) and UC1 only.

TRIM_STATS = ("SAI_QUEUE_STAT_TRIM_PACKETS", "SAI_QUEUE_STAT_TX_TRIM_PACKETS", "SAI_QUEUE_STAT_DROPPED_TRIM_PACKETS")
ETH4_QUEUES = {i: f"oid:0x15000000000{0x37f + i:03x}" for i in range(30)}
SONIC_TRIM = Counters(
    {"COUNTERS_PORT_NAME_MAP": {"Ethernet4": "oid:0x1000000000013"},
     "COUNTERS_QUEUE_NAME_MAP": {f"Ethernet4:{i}": oid for i, oid in ETH4_QUEUES.items()},
     "COUNTERS_QUEUE_PORT_MAP": dict.fromkeys(ETH4_QUEUES.values(), "oid:0x1000000000013"),
     "COUNTERS_QUEUE_INDEX_MAP": {oid: str(i) for i, oid in ETH4_QUEUES.items()},
     "COUNTERS_QUEUE_TYPE_MAP": {oid: kind for oid, kind in zip(ETH4_QUEUES.values(), QUEUE_TYPES, strict=True)}},
    {"COUNTERS": {ETH4_QUEUES[0]: dict.fromkeys(TRIM_STATS, "0"),
                  ETH4_QUEUES[1]: dict(zip(TRIM_STATS, ("100", "50", "50"), strict=True)),
                  **{ETH4_QUEUES[i]: {"SAI_QUEUE_STAT_PACKETS": "1"} for i in range(2, 30)}}},
)

SONIC_QUEUE_TRIM_ETH4 = """\
For namespace :
     Port    TxQ    Trim/pkts    TrimSent/pkts    TrimDrop/pkts
---------  -----  -----------  ---------------  ---------------
Ethernet4    UC0            0                0                0
Ethernet4    UC1          100               50               50
Ethernet4    UC2          N/A              N/A              N/A
Ethernet4    UC3          N/A              N/A              N/A
Ethernet4    UC4          N/A              N/A              N/A
Ethernet4    UC5          N/A              N/A              N/A
Ethernet4    UC6          N/A              N/A              N/A
Ethernet4    UC7          N/A              N/A              N/A
Ethernet4    UC8          N/A              N/A              N/A
Ethernet4    UC9          N/A              N/A              N/A
Ethernet4   MC10          N/A              N/A              N/A
Ethernet4   MC11          N/A              N/A              N/A
Ethernet4   MC12          N/A              N/A              N/A
Ethernet4   MC13          N/A              N/A              N/A
Ethernet4   MC14          N/A              N/A              N/A
Ethernet4   MC15          N/A              N/A              N/A
Ethernet4   MC16          N/A              N/A              N/A
Ethernet4   MC17          N/A              N/A              N/A
Ethernet4   MC18          N/A              N/A              N/A
Ethernet4   MC19          N/A              N/A              N/A
Ethernet4  ALL20          N/A              N/A              N/A
Ethernet4  ALL21          N/A              N/A              N/A
Ethernet4  ALL22          N/A              N/A              N/A
Ethernet4  ALL23          N/A              N/A              N/A
Ethernet4  ALL24          N/A              N/A              N/A
Ethernet4  ALL25          N/A              N/A              N/A
Ethernet4  ALL26          N/A              N/A              N/A
Ethernet4  ALL27          N/A              N/A              N/A
Ethernet4  ALL28          N/A              N/A              N/A
Ethernet4  ALL29          N/A              N/A              N/A

"""


def test_show_queue_counters_trim() -> None:
    found = queuestat.queue_rows(SONIC_TRIM, queuestat.TRIM, "Ethernet4")
    assert queuestat.queue_text(found, queuestat.TRIM, queuestat.NAMESPACE_HEADING) == SONIC_QUEUE_TRIM_ETH4
