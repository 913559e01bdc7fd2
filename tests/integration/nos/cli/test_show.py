"""``nos show`` against a real Redis: rows written as SONiC's daemons write them, read back by the
``gather_*`` seams and by the click commands through a run directory that points at the test Redis."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from nos.cli.main import cli
from nos.cli.show import render
from nos.cli.show.interfaces import gather_portchannel, gather_status
from nos.cli.show.ip import gather_ip_interfaces, gather_routes, routes, routes_text
from nos.cli.show.vlan import gather_vlan
from nos.db import ConfigDBConnector, ProducerStateTable, Table

pytestmark = pytest.mark.integration

ROUTE_ENTRY = "ASIC_STATE:SAI_OBJECT_TYPE_ROUTE_ENTRY:"


@pytest.fixture
def run_dir(tmp_path: Path, redis_url: str) -> str:
    """A run directory as ``nos up`` leaves it, for a switch whose Redis is the test server."""
    (tmp_path / "endpoints.json").write_text(json.dumps({"redis": redis_url}))
    (tmp_path / "supervisor.pid").write_text(str(os.getpid()))
    return str(tmp_path)


def show(run_dir: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["show", *args, "--run-dir", run_dir])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def switch(dbs):
    """Two ports, a LAG, a VLAN and addresses: CONFIG_DB as config_db.json loads it, APPL_DB rows as
    portmgrd/teamsyncd/intfmgrd leave them after orchagent popped them, STATE_DB as portsyncd and teamd write it."""
    ConfigDBConnector(dbs["CONFIG_DB"]).mod_config({
        "PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "400000"},
                 "Ethernet4": {"lanes": "4,5,6,7", "speed": "400000"},
                 "Ethernet12": {"lanes": "12,13,14,15", "speed": "400000"}},
        "PORTCHANNEL": {"PortChannel0001": {"mtu": "9100", "admin_status": "up"}},
        "PORTCHANNEL_MEMBER": {"PortChannel0001|Ethernet4": {}},
        "VLAN": {"Vlan100": {"vlanid": "100", "dhcp_servers": ["10.9.9.9", "10.9.9.10"]}},
        "VLAN_MEMBER": {"Vlan100|Ethernet12": {"tagging_mode": "untagged"}},
        "VLAN_INTERFACE": {"Vlan100": {"proxy_arp": "enabled"}, "Vlan100|192.168.100.1/24": {}},
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}},
    })
    port = Table(dbs["APPL_DB"], "PORT_TABLE")
    port.set("PortConfigDone", {"count": "3"})
    port.set("PortInitDone", {"lanes": "0"})
    for name, lanes, alias, oper in (("Ethernet0", "0,1,2,3", "etp1", "up"), ("Ethernet4", "4,5,6,7", "etp2", "up"),
                                     ("Ethernet12", "12,13,14,15", "etp4", "down")):
        port.set(name, {"lanes": lanes, "speed": "400000", "mtu": "9100", "fec": "rs", "alias": alias,
                        "admin_status": "up", "oper_status": oper, "pfc_asym": "off"})
    Table(dbs["STATE_DB"], "PORT_TABLE").set("Ethernet0", {"state": "ok", "speed": "400000"})
    Table(dbs["APPL_DB"], "LAG_TABLE").set("PortChannel0001", {"admin_status": "up", "oper_status": "up"})
    Table(dbs["APPL_DB"], "LAG_MEMBER_TABLE").set("PortChannel0001:Ethernet4", {"status": "enabled"})
    Table(dbs["STATE_DB"], "LAG_TABLE").set("PortChannel0001", {"state": "ok", "runner.active": "true"})
    Table(dbs["STATE_DB"], "LAG_MEMBER_TABLE").set("PortChannel0001|Ethernet4", {"runner.aggregator.selected": "true"})
    Table(dbs["APPL_DB"], "VLAN_TABLE").set("Vlan100", {"admin_status": "up", "mtu": "9100"})
    Table(dbs["APPL_DB"], "INTF_TABLE").set("Ethernet0:10.0.0.0/31", {"scope": "global", "family": "IPv4"})
    return dbs


STATUS = """\
      Interface        Lanes    Speed    MTU    FEC    Alias             Vlan    Oper    Admin    Type    Asym PFC
---------------  -----------  -------  -----  -----  -------  ---------------  ------  -------  ------  ----------
      Ethernet0      0,1,2,3     400G   9100     rs     etp1           routed      up       up     N/A         off
      Ethernet4      4,5,6,7     400G   9100     rs     etp2  PortChannel0001      up       up     N/A         off
     Ethernet12  12,13,14,15     400G   9100     rs     etp4            trunk    down       up     N/A         off
PortChannel0001          N/A     400G   9100    N/A      N/A           routed      up       up     N/A         N/A
"""


def test_gather_status_reads_the_rows_render_needs(switch):
    records = render.interface_status(gather_status(switch))
    assert [r["interface"] for r in records] == ["Ethernet0", "Ethernet4", "Ethernet12", "PortChannel0001"]
    assert records[2]["lanes"] == "12,13,14,15" and records[2]["vlan"] == "trunk"


def test_show_interfaces_status(switch, run_dir):
    assert show(run_dir, "interfaces", "status") == STATUS
    records = json.loads(show(run_dir, "interfaces", "status", "Ethernet4", "--json"))
    assert records == [{"interface": "Ethernet4", "lanes": "4,5,6,7", "speed": "400G", "mtu": "9100", "fec": "rs",
                        "alias": "etp2", "vlan": "PortChannel0001", "oper": "up", "admin": "up", "type": "N/A",
                        "asym_pfc": "off"}]


def test_show_interfaces_portchannel(switch, run_dir):
    assert render.portchannel_summary(gather_portchannel(switch))[0]["ports"][0]["selected"] is True
    assert show(run_dir, "interfaces", "portchannel") == """\
Flags: A - active, I - inactive, Up - up, Dw - Down, N/A - not available,
       S - selected, D - deselected, * - not synced
  No.  Team Dev         Protocol     Ports
-----  ---------------  -----------  ------------
 0001  PortChannel0001  LACP(A)(Up)  Ethernet4(S)
"""


def test_show_vlan_brief_and_config(switch, run_dir):
    assert render.vlan_brief(gather_vlan(switch))[0]["dhcp_helper_addresses"] == ["10.9.9.9", "10.9.9.10"]
    assert show(run_dir, "vlan", "brief") == """\
+-----------+------------------+------------+----------------+-------------+--------------------------+
|   VLAN ID | IP Address       | Ports      | Port Tagging   | Proxy ARP   | Static Anycast Gateway   |
+===========+==================+============+================+=============+==========================+
|       100 | 192.168.100.1/24 | Ethernet12 | untagged       | enabled     | disabled                 |
+-----------+------------------+------------+----------------+-------------+--------------------------+
"""
    assert show(run_dir, "vlan", "config") == """\
Name       VID  Member      Mode
-------  -----  ----------  --------
Vlan100    100  Ethernet12  untagged
"""


def test_show_ip_interfaces(switch, run_dir):
    assert [r["interface"] for r in render.ip_interfaces(gather_ip_interfaces(switch))] == ["Ethernet0", "Vlan100"]
    assert show(run_dir, "ip", "interfaces") == """\
Interface    Master    IPv4 address/mask    Admin/Oper    BGP Neighbor    Neighbor IP
-----------  --------  -------------------  ------------  --------------  -------------
Ethernet0              10.0.0.0/31          up/up         N/A             N/A
Vlan100                192.168.100.1/24     up/down       N/A             N/A
"""
    assert show(run_dir, "ipv6", "interfaces").startswith("Interface    Master    IPv6 address/mask")


def _install(raw, dest: str) -> None:
    key = json.dumps({"dest": dest, "switch_id": "oid:0x21000000000000", "vr": "oid:0x3000000000022"},
                     separators=(",", ":"))
    raw(1).hset(ROUTE_ENTRY + key, "SAI_ROUTE_ENTRY_ATTR_PACKET_ACTION", "SAI_PACKET_ACTION_FORWARD")


def test_show_ip_route(dbs, raw, run_dir):
    routes_table = Table(dbs["APPL_DB"], "ROUTE_TABLE")
    routes_table.set("10.0.0.0/31", {"nexthop": "0.0.0.0", "ifname": "Ethernet0", "protocol": "kernel"})
    routes_table.set("2.2.2.0/24", {"nexthop": "10.0.0.1,10.0.0.3", "ifname": "Ethernet0,Ethernet4",
                                    "protocol": "bgp"})
    routes_table.set("Vrf1:10.8.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "bgp"})
    ProducerStateTable(dbs["APPL_DB"], "ROUTE_TABLE").set(
        "10.1.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"})  # not popped yet
    _install(raw, "10.0.0.0/31")
    _install(raw, "2.2.2.0/24")

    found = routes(gather_routes(dbs), 4)
    assert [(str(r.network), r.installed) for r in found] == [
        ("2.2.2.0/24", True), ("10.0.0.0/31", True), ("10.1.0.0/24", False)]
    output = show(run_dir, "ip", "route")
    assert output == routes_text(found, 4) + "\n"
    assert output.endswith("""
B>* 2.2.2.0/24 [20/0] via 10.0.0.1, Ethernet0
  *                   via 10.0.0.3, Ethernet4
C>* 10.0.0.0/31 is directly connected, Ethernet0
S>q 10.1.0.0/24 [1/0] via 10.0.0.1, Ethernet0
""")
    assert json.loads(show(run_dir, "ip", "route", "10.1.0.9", "--json")) == [{
        "prefix": "10.1.0.0/24", "vrf": "default", "protocol": "static", "installed": False, "blackhole": False,
        "nexthops": [{"ip": "10.0.0.1", "ifname": "Ethernet0"}]}]
    assert show(run_dir, "ip", "route", "--vrf", "Vrf1").endswith(
        "\nVRF Vrf1:\nB>q 10.8.0.0/24 [20/0] via 10.0.0.1, Ethernet0\n")
    assert show(run_dir, "ip", "route", "--vrf", "Vrf7") == "vrf Vrf7 not defined\n"
    assert show(run_dir, "ipv6", "route") == ""


def test_show_without_a_running_switch_says_so(tmp_path):
    result = CliRunner().invoke(cli, ["show", "vlan", "brief", "--run-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "no switch is running" in result.output


def test_bad_route_prefix_is_an_error(run_dir):
    result = CliRunner().invoke(cli, ["show", "ip", "route", "fc00::/64", "--run-dir", run_dir])
    assert result.exit_code == 1
    assert "not an IPv4 prefix" in result.output
