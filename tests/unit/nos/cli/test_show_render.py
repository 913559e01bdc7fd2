"""``nos show`` rendering with plain data: whole tables against golden strings in SONiC's format."""

from __future__ import annotations

import ipaddress
import json

import pytest

from nos.cli.show import render
from nos.cli.show.ip import (
    installed_routes,
    parse_route_query,
    route_protocol,
    route_record,
    routes,
    routes_text,
    split_route_key,
)
from nos.cli.show.render import Snapshot

# ---- helpers -----------------------------------------------------------------------------------


def test_natural_sort_puts_ethernet4_before_ethernet12() -> None:
    assert render.natsorted(["Ethernet12", "PortChannel0001", "Ethernet4", "Ethernet100", "Ethernet0"]) == [
        "Ethernet0", "Ethernet4", "Ethernet12", "Ethernet100", "PortChannel0001"]


@pytest.mark.parametrize(("mbps", "optics", "shown"), [
    ("400000", None, "400G"), ("100000", None, "100G"), ("25000", None, "25G"), ("10000", None, "10G"),
    ("2500", None, "2.5G"), ("1000", None, "1G"), ("100", None, "100M"),
    ("1000", "RJ45", "1000M"), ("100", "RJ45", "100M"), ("10000", "RJ45", "10G"), ("1000", "QSFP28", "1G"),
    (None, None, "N/A"), ("", None, "N/A"), ("N/A", None, "N/A"),
])
def test_speed_is_printed_as_intfutil_does(mbps: str | None, optics: str | None, shown: str) -> None:
    assert render.format_speed(mbps, optics) == shown


def test_interface_filter_takes_lists_and_ranges() -> None:
    assert render.parse_interface_filter("Ethernet0, Ethernet8-16") == {
        "Ethernet0", *(f"Ethernet{n}" for n in range(8, 17))}
    assert render.parse_interface_filter(None) is None


# ---- show interfaces status ----------------------------------------------------------------------


def _port(lanes: str, speed: str, alias: str, oper: str) -> dict[str, str]:
    return {"lanes": lanes, "speed": speed, "mtu": "9100", "fec": "rs", "alias": alias, "oper_status": oper,
            "admin_status": "up", "pfc_asym": "off"}


PORTS = Snapshot({
    ("CONFIG_DB", "PORT"): {f"Ethernet{n}": {"lanes": str(n)} for n in (0, 4, 12, 16)},
    ("APPL_DB", "PORT_TABLE"): {
        "PortConfigDone": {"count": "4"}, "PortInitDone": {"lanes": "0"},
        "Ethernet0": _port("0,1,2,3", "400000", "etp1", "up"),
        "Ethernet12": _port("12,13,14,15", "100000", "etp4", "down"),
        "Ethernet4": _port("4,5,6,7", "400000", "etp2", "up"),
        "Ethernet16": {"lanes": "16,17,18,19", "speed": "2500", "alias": "etp5", "admin_status": "down"},
        "Ethernet99": {"lanes": "99"},  # not in CONFIG_DB PORT: not a front-panel port
    },
    ("STATE_DB", "PORT_TABLE"): {"Ethernet0": {"speed": "200000", "state": "ok"}, "Ethernet12": {"speed": "50000"}},
    ("STATE_DB", "TRANSCEIVER_INFO"): {"Ethernet0": {"type": "QSFP112"}},
    ("CONFIG_DB", "VLAN_MEMBER"): {"Vlan100|Ethernet0": {"tagging_mode": "untagged"},
                                   "Vlan100|PortChannel0001": {"tagging_mode": "tagged"}},
    ("CONFIG_DB", "PORTCHANNEL_MEMBER"): {"PortChannel0001|Ethernet4": {}, "PortChannel0001|Ethernet12": {}},
    ("CONFIG_DB", "PORTCHANNEL"): {"PortChannel0001": {"mtu": "9100"}},
    ("APPL_DB", "LAG_TABLE"): {"PortChannel0001": {"oper_status": "up", "admin_status": "up"}},
})

STATUS_TABLE = """\
      Interface        Lanes    Speed    MTU    FEC    Alias             Vlan    Oper    Admin     Type    Asym PFC
---------------  -----------  -------  -----  -----  -------  ---------------  ------  -------  -------  ----------
      Ethernet0      0,1,2,3     200G   9100     rs     etp1            trunk      up       up  QSFP112         off
      Ethernet4      4,5,6,7     400G   9100     rs     etp2  PortChannel0001      up       up      N/A         off
     Ethernet12  12,13,14,15     100G   9100     rs     etp4  PortChannel0001    down       up      N/A         off
     Ethernet16  16,17,18,19     2.5G    N/A    N/A     etp5           routed     N/A     down      N/A         N/A
PortChannel0001          N/A     500G   9100    N/A      N/A            trunk      up       up      N/A         N/A"""


def test_interface_status_table_is_sonics() -> None:
    # Ethernet0 is up, so STATE_DB's oper speed wins; Ethernet12 is down, so the configured speed shows;
    # the LAG's speed is the sum of its members'; PortConfigDone/PortInitDone are not ports.
    assert render.interface_status_table(render.interface_status(PORTS)) == STATUS_TABLE


def test_interface_status_filters_and_gives_records() -> None:
    records = render.interface_status(PORTS, "Ethernet0,Ethernet8-12")
    assert [r["interface"] for r in records] == ["Ethernet0", "Ethernet12"]
    assert records[0] == {"interface": "Ethernet0", "lanes": "0,1,2,3", "speed": "200G", "mtu": "9100", "fec": "rs",
                          "alias": "etp1", "vlan": "trunk", "oper": "up", "admin": "up", "type": "QSFP112",
                          "asym_pfc": "off"}


def test_lag_speed_of_one_member_without_speed_is_na() -> None:
    snap = Snapshot({("CONFIG_DB", "PORTCHANNEL_MEMBER"): {"PortChannel1|Ethernet0": {}}})
    (record,) = render.interface_status(snap)
    assert (record["interface"], record["speed"], record["mtu"], record["oper"]) == ("PortChannel1", "N/A", "", "N/A")


# ---- show interfaces portchannel ---------------------------------------------------------------

LAGS = Snapshot({
    ("CONFIG_DB", "PORTCHANNEL"): {"PortChannel0001": {}, "PortChannel0002": {}, "PortChannel10": {},
                                   "PortChannel0003": {}, "PortChannel0004": {}},
    ("APPL_DB", "LAG_TABLE"): {"PortChannel0001": {"oper_status": "up"}, "PortChannel0002": {"oper_status": "down"},
                               "PortChannel0003": {"oper_status": "up"}, "PortChannel0004": {"oper_status": "up"}},
    ("APPL_DB", "LAG_MEMBER_TABLE"): {"PortChannel0001:Ethernet4": {"status": "enabled"},
                                      "PortChannel0001:Ethernet12": {"status": "disabled"},
                                      "PortChannel0002:Ethernet8": {"status": "enabled"},
                                      "PortChannel0003:Ethernet16": {"status": "enabled"},
                                      "PortChannel0004:Ethernet24": {"status": "enabled"}},
    ("STATE_DB", "LAG_TABLE"): {"PortChannel0001": {"runner.active": "true", "state": "ok"},
                                "PortChannel0002": {"runner.active": "false", "state": "ok"},
                                "PortChannel0003": {"state": "ok"}},
    ("STATE_DB", "LAG_MEMBER_TABLE"): {"PortChannel0001|Ethernet4": {"runner.aggregator.selected": "true"},
                                       "PortChannel0001|Ethernet12": {"runner.aggregator.selected": "false"},
                                       "PortChannel0002|Ethernet8": {"runner.aggregator.selected": "false"},
                                       "PortChannel0002|Ethernet20": {"runner.aggregator.selected": "true"}},
})

PORTCHANNEL_TABLE = """\
Flags: A - active, I - inactive, Up - up, Dw - Down, N/A - not available,
       S - selected, D - deselected, * - not synced
  No.  Team Dev         Protocol     Ports
-----  ---------------  -----------  ----------------------------
 0001  PortChannel0001  LACP(A)(Up)  Ethernet4(S) Ethernet12(D)
 0002  PortChannel0002  LACP(I)(Dw)  Ethernet8(D*) Ethernet20(S*)
 0003  PortChannel0003  LACP(A)(Up)  N/A
 0004  PortChannel0004  N/A
   10  PortChannel10    N/A"""


def test_portchannel_table_is_teamshows() -> None:
    # 0001: teamd (STATE_DB) and teamsyncd (APPL_DB) agree; 0002: they disagree, or teamsyncd has nothing
    # -> '*'; 0003: teamd reports no member (teamsyncd's Ethernet16 is not listed); 0004: no teamd state
    # yet (only APPL_DB); PortChannel10: not created yet.
    assert render.portchannel_table(render.portchannel_summary(LAGS)) == PORTCHANNEL_TABLE


def test_portchannel_records() -> None:
    first = render.portchannel_summary(LAGS)[0]
    assert first == {"no": "0001", "team_dev": "PortChannel0001",
                     "protocol": {"name": "LACP", "active": True, "oper_status": "up"},
                     "ports": [{"name": "Ethernet4", "selected": True, "status": "enabled", "in_sync": True},
                               {"name": "Ethernet12", "selected": False, "status": "disabled", "in_sync": True}]}


# ---- show vlan brief / config ------------------------------------------------------------------

VLANS = Snapshot({
    ("CONFIG_DB", "VLAN"): {"Vlan1000": {"vlanid": "1000", "dhcp_servers": ["192.0.0.2", "192.0.0.10", "192.0.0.1"]},
                            "Vlan200": {"vlanid": "200"}, "Vlan30": {"vlanid": "30", "members": ["Ethernet40"]}},
    ("CONFIG_DB", "VLAN_INTERFACE"): {"Vlan1000": {"proxy_arp": "enabled"}, "Vlan1000|192.168.0.1/21": {},
                                      "Vlan1000|fc02:1000::1/64": {}, "Vlan200": {"static_anycast_gateway": "true"}},
    ("CONFIG_DB", "VLAN_MEMBER"): {"Vlan1000|Ethernet8": {"tagging_mode": "untagged"},
                                   "Vlan1000|Ethernet12": {"tagging_mode": "tagged"},
                                   "Vlan1000|PortChannel0001": {"tagging_mode": "tagged"},
                                   "Vlan200|Ethernet4": {"tagging_mode": "untagged"}},
})

VLAN_BRIEF_TABLE = """\
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|   VLAN ID | IP Address      | Ports           | Port Tagging   | Proxy ARP   | Static Anycast Gateway   |
+===========+=================+=================+================+=============+==========================+
|        30 |                 |                 |                | disabled    | disabled                 |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|       200 |                 | Ethernet4       | untagged       | disabled    | enabled                  |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+
|      1000 | 192.168.0.1/21  | Ethernet8       | untagged       | enabled     | disabled                 |
|           | fc02:1000::1/64 | Ethernet12      | tagged         |             |                          |
|           |                 | PortChannel0001 | tagged         |             |                          |
+-----------+-----------------+-----------------+----------------+-------------+--------------------------+"""

VLAN_CONFIG_TABLE = """\
Name        VID  Member           Mode
--------  -----  ---------------  --------
Vlan30       30  Ethernet40
Vlan200     200  Ethernet4        untagged
Vlan1000   1000  Ethernet8        untagged
Vlan1000   1000  Ethernet12       tagged
Vlan1000   1000  PortChannel0001  tagged"""


def test_vlan_brief_grid_is_sonics() -> None:
    assert render.vlan_brief_table(render.vlan_brief(VLANS)) == VLAN_BRIEF_TABLE
    # the DHCP servers stay in the records (--json), natsorted
    assert render.vlan_brief(VLANS)[2]["dhcp_helper_addresses"] == ["192.0.0.1", "192.0.0.2", "192.0.0.10"]


def test_vlan_brief_dhcp_helpers_are_na_when_the_dhcp_server_feature_runs() -> None:
    snap = Snapshot({**VLANS.tables, ("CONFIG_DB", "FEATURE"): {"dhcp_server": {"state": "enabled"}}})
    assert [r["dhcp_helper_addresses"] for r in render.vlan_brief(snap)] == [["N/A"]] * 3


def test_vlan_config_lists_every_member_once() -> None:
    assert render.vlan_config_table(render.vlan_config(VLANS)) == VLAN_CONFIG_TABLE


# ---- show ip / ipv6 interfaces -----------------------------------------------------------------

IP_INTERFACES = Snapshot({
    ("CONFIG_DB", "INTERFACE"): {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}, "Ethernet0|fc00::/126": {},
                                 "Ethernet4": {"vrf_name": "Vrf1"}, "Ethernet4|10.0.0.10/31": {},
                                 "Ethernet4|10.0.0.2/31": {}},
    ("CONFIG_DB", "PORTCHANNEL_INTERFACE"): {"PortChannel0001|10.0.1.0/31": {}},
    ("CONFIG_DB", "VLAN_INTERFACE"): {"Vlan1000|192.168.0.1/21": {}},
    ("CONFIG_DB", "LOOPBACK_INTERFACE"): {"Loopback0|10.1.0.1/32": {}},
    ("APPL_DB", "INTF_TABLE"): {"Ethernet0:10.0.0.0/31": {"scope": "global", "family": "IPv4"},
                                "Ethernet12:10.0.0.12/31": {"family": "IPv4"}},
    ("APPL_DB", "PORT_TABLE"): {"Ethernet0": {"admin_status": "up", "oper_status": "up"},
                                "Ethernet4": {"admin_status": "up", "oper_status": "down"},
                                "Ethernet8": {"oper_status": "up"}},
    ("APPL_DB", "LAG_TABLE"): {"PortChannel0001": {"admin_status": "up", "oper_status": "up"}},
    ("APPL_DB", "VLAN_TABLE"): {"Vlan1000": {"admin_status": "up"}},
    ("CONFIG_DB", "VLAN_MEMBER"): {"Vlan1000|Ethernet8": {"tagging_mode": "untagged"}},
    ("CONFIG_DB", "BGP_NEIGHBOR"): {"10.0.0.1": {"local_addr": "10.0.0.0", "name": "ARISTA01T2"},
                                    "default|fc00::2": {"local_addr": "fc00::1", "name": "ARISTA01T2"}},
})

IPV4_INTERFACES_TABLE = """\
Interface        Master    IPv4 address/mask    Admin/Oper    BGP Neighbor    Neighbor IP
---------------  --------  -------------------  ------------  --------------  -------------
Ethernet0                  10.0.0.0/31          up/up         ARISTA01T2      10.0.0.1
Ethernet4        Vrf1      10.0.0.2/31          up/down       N/A             N/A
                           10.0.0.10/31                       N/A             N/A
Ethernet12                 10.0.0.12/31         N/A/N/A       N/A             N/A
Loopback0                  10.1.0.1/32          up/up         N/A             N/A
PortChannel0001            10.0.1.0/31          up/up         N/A             N/A
Vlan1000                   192.168.0.1/21       up/up         N/A             N/A"""

IPV6_INTERFACES_TABLE = """\
Interface    Master    IPv6 address/mask    Admin/Oper    BGP Neighbor    Neighbor IP
-----------  --------  -------------------  ------------  --------------  -------------
Ethernet0              fc00::/126           up/up         N/A             N/A"""


def test_ip_interfaces_table_is_ipintutils() -> None:
    # Ethernet12 has its address only in APPL_DB (applied, config since removed); the VLAN is up because
    # a member port is.
    assert render.ip_interfaces_table(render.ip_interfaces(IP_INTERFACES, 4), 4) == IPV4_INTERFACES_TABLE
    assert render.ip_interfaces_table(render.ip_interfaces(IP_INTERFACES, 6), 6) == IPV6_INTERFACES_TABLE


# ---- show ip / ipv6 route ----------------------------------------------------------------------


def _entry(dest: str, vr: str = "oid:0x3000000000022") -> str:
    return json.dumps({"dest": dest, "switch_id": "oid:0x21000000000000", "vr": vr}, separators=(",", ":"))


ROUTES = Snapshot({
    ("APPL_DB", "ROUTE_TABLE"): {
        "10.1.0.0/24": {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"},
        "10.0.0.0/31": {"nexthop": "0.0.0.0", "ifname": "Ethernet0", "protocol": "kernel"},
        "2.2.2.0/24": {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4", "protocol": "bgp",
                       "weight": "1,1"},
        "192.168.0.0/16": {"blackhole": "true", "protocol": "static"},
        "0.0.0.0/0": {"nexthop_group": "7", "protocol": "186"},
        "Vrf1:10.9.0.0/24": {"nexthop": "10.0.0.11", "ifname": "Ethernet4", "protocol": "bgp"},
        "fc00:1::/64": {"nexthop": "fc00::2", "ifname": "Ethernet0", "protocol": "bgp"},
        "10.3.0.0/24": {"nexthop": "10.0.0.1", "ifname": "Ethernet0"},
    },
    ("APPL_DB", "_ROUTE_TABLE"): {"10.5.0.0/24": {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"}},
    ("APPL_DB", "NEXTHOP_GROUP_TABLE"): {"7": {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4"}},
    ("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_ROUTE_ENTRY"): {
        _entry("10.1.0.0/24"): {}, _entry("10.0.0.0/31"): {}, _entry("2.2.2.0/24"): {}, _entry("192.168.0.0/16"): {},
        _entry("0.0.0.0/0"): {}, _entry("10.9.0.0/24", "oid:0x3000000000099"): {}, _entry("fc00:1:0:0::/64"): {},
    },
    ("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_VIRTUAL_ROUTER"): {"oid:0x3000000000099": {}},
})

CODES_TAIL = """\
       T - Table, v - VNC, V - VNC-Direct, A - Babel, F - PBR,
       f - OpenFabric, t - Table-Direct,
       > - selected route, * - FIB route, q - queued, r - rejected, b - backup
       t - trapped, o - offload failure
"""
V4_HEADER = """\
Codes: K - kernel route, C - connected, L - local, S - static,
       R - RIP, O - OSPF, I - IS-IS, B - BGP, E - EIGRP, N - NHRP,
""" + CODES_TAIL
V6_HEADER = """\
Codes: K - kernel route, C - connected, L - local, S - static,
       R - RIPng, O - OSPFv3, I - IS-IS, B - BGP, N - NHRP,
""" + CODES_TAIL

IPV4_ROUTES = V4_HEADER + """
B>* 0.0.0.0/0 [20/0] via 10.0.0.1, Ethernet0
  *                  via 10.0.0.3, Ethernet4
B>* 2.2.2.0/24 [20/0] via 10.0.0.1, Ethernet0, weight 1
  *                   via 10.0.0.3, Ethernet4, weight 1
C>* 10.0.0.0/31 is directly connected, Ethernet0
S>* 10.1.0.0/24 [1/0] via 10.0.0.1, Ethernet0
K>q 10.3.0.0/24 [0/0] via 10.0.0.1, Ethernet0
S>q 10.5.0.0/24 [1/0] via 10.0.0.1, Ethernet0
S>* 192.168.0.0/16 [1/0] unreachable (blackhole)"""


def test_ip_route_is_frrs_format() -> None:
    # 10.3.0.0/24 (no protocol, not in ASIC_DB) and 10.5.0.0/24 (still in the producer queue) are queued.
    assert routes_text(routes(ROUTES, 4), 4) == IPV4_ROUTES


def test_vrf_and_ipv6_routes() -> None:
    assert routes_text(routes(ROUTES, 4, "Vrf1"), 4, "Vrf1") == (
        V4_HEADER + "\nVRF Vrf1:\nB>* 10.9.0.0/24 [20/0] via 10.0.0.11, Ethernet4")
    assert routes_text(routes(ROUTES, 6), 6) == V6_HEADER + "\nB>* fc00:1::/64 [20/0] via fc00::2, Ethernet0"
    assert routes_text(routes(ROUTES, 4, "Vrf9"), 4, "Vrf9") == ""


def test_route_lookup_by_prefix_or_address() -> None:
    assert [str(r.network) for r in routes(ROUTES, 4, query="10.1.0.77")] == ["10.1.0.0/24"]
    assert [str(r.network) for r in routes(ROUTES, 4, query="172.16.0.1")] == ["0.0.0.0/0"]
    assert [route_record(r) for r in routes(ROUTES, 4, query="2.2.2.0/24")] == [{
        "prefix": "2.2.2.0/24", "vrf": "default", "protocol": "bgp", "installed": True, "blackhole": False,
        "nexthops": [{"ip": "10.0.0.1", "ifname": "Ethernet0"}, {"ip": "10.0.0.3", "ifname": "Ethernet4"}]}]
    with pytest.raises(ValueError):
        parse_route_query("fc00::/64", 4)


def test_installed_compares_asic_prefixes_semantically() -> None:
    key = '{"vr": "oid:0x3000000000022", "switch_id": "oid:0x21000000000000", "dest": "FC00:0001::/64"}'
    snap = Snapshot({("ASIC_DB", "ASIC_STATE:SAI_OBJECT_TYPE_ROUTE_ENTRY"): {key: {}, "not json": {}}})
    assert installed_routes(snap) == {(True, ipaddress.ip_network("fc00:1::/64"))}


@pytest.mark.parametrize(("raw", "direct", "name"), [
    ("kernel", True, "connected"), ("kernel", False, "kernel"), (None, True, "connected"), (None, False, "kernel"),
    ("196", False, "static"), ("186", False, "bgp"), ("static", True, "static"), ("zebra", False, "kernel"),
])
def test_route_protocol_names(raw: str | None, direct: bool, name: str) -> None:
    assert route_protocol(raw, direct) == name


def test_route_keys_with_and_without_vrf() -> None:
    assert split_route_key("Vrf1:10.0.0.0/24") == ("Vrf1", "10.0.0.0/24")
    assert split_route_key("fc00::/64") == ("default", "fc00::/64")
