"""``nos config interface|vlan|portchannel`` against a real Redis: the CONFIG_DB rows SONiC's commands
write (raw hashes, ``NULL``=``NULL`` for field-less rows), and refusals that leave CONFIG_DB unchanged."""

from __future__ import annotations

import json

import pytest

from tests.integration.nos.cli.conftest import config_dump, nos

pytestmark = pytest.mark.integration


def test_interface_speed_mtu_startup_shutdown(sku_config, raw, run_dir):
    nos(run_dir, "config", "interface", "speed", "Ethernet0", "200000")
    nos(run_dir, "config", "interface", "mtu", "Ethernet4", "1500")
    nos(run_dir, "config", "interface", "shutdown", "Ethernet8-16")
    nos(run_dir, "config", "interface", "shutdown", "Ethernet20,Ethernet24")
    cdb = raw(4)
    assert cdb.hget("PORT|Ethernet0", "speed") == "200000" and cdb.hget("PORT|Ethernet4", "mtu") == "1500"
    assert [cdb.hget(f"PORT|Ethernet{n}", "admin_status") for n in (4, 8, 12, 16, 20, 24, 28)] == [
        "up", "down", "down", "down", "down", "down", "up"]
    nos(run_dir, "config", "interface", "startup", "Ethernet8")
    assert cdb.hget("PORT|Ethernet8", "admin_status") == "up"
    assert cdb.hget("PORT|Ethernet0", "lanes") == "0,1,2,3"  # the rest of the row is kept


def test_speed_is_checked_against_state_db_supported_speeds(sku_config, raw, run_dir):
    raw(6).hset("PORT_TABLE|Ethernet0", "supported_speeds", "100000,200000,400000")
    result = nos(run_dir, "config", "interface", "speed", "Ethernet0", "800000", code=2)
    assert "Invalid speed specified: 800000" in result.output and "Valid speeds:100000,200000,400000" in result.output
    assert raw(4).hget("PORT|Ethernet0", "speed") == "400000"


@pytest.mark.parametrize(("args", "message"), [
    (("interface", "mtu", "Ethernet0", "9217"), "9217 is not in the range 68<=x<=9216"),
    (("interface", "mtu", "Ethernet999", "1500"), "Invalid port Ethernet999"),
    (("interface", "startup", "Ethernet999"), "Interface name is invalid"),
    (("interface", "speed", "Ethernet0", "2000000"),
     "PORT|Ethernet0: field 'speed' = '2000000': "),  # refused by the validation, named field by field
    (("interface", "ip", "add", "Ethernet999", "10.0.0.0/31"), "Ethernet999 does not exist"),
    (("vlan", "add", "4095"), "Invalid VLAN ID 4095 (2-4094)"),
    (("vlan", "add", "-m", "100-5000"), "Invalid VLAN ID must be in (2-4094)"),
    (("vlan", "member", "add", "100", "Ethernet0"), "Vlan100 does not exist"),
    (("portchannel", "add", "Po1"), "Po1 is invalid!"),
    (("portchannel", "member", "add", "PortChannel9", "Ethernet0"), "PortChannel9 is not present."),
])
def test_bad_arguments_are_refused_with_config_db_unchanged(sku_config, raw, run_dir, args, message):
    before = config_dump(raw)
    result = nos(run_dir, "config", *args, code=2)
    assert message in result.output
    assert "Traceback" not in result.output
    assert config_dump(raw) == before


def test_ip_add_and_remove(sku_config, raw, run_dir):
    nos(run_dir, "config", "interface", "ip", "add", "Ethernet0", "10.0.0.0/31")
    nos(run_dir, "config", "interface", "ip", "add", "Ethernet0", "fc00::/126")
    nos(run_dir, "config", "interface", "ip", "add", "Loopback0", "10.1.0.1/32")
    cdb = raw(4)
    assert cdb.hgetall("INTERFACE|Ethernet0") == {"NULL": "NULL"}
    assert cdb.hgetall("INTERFACE|Ethernet0|10.0.0.0/31") == {"NULL": "NULL"}
    assert cdb.exists("INTERFACE|Ethernet0|fc00::/126") and cdb.exists("LOOPBACK_INTERFACE|Loopback0|10.1.0.1/32")
    nos(run_dir, "config", "interface", "ip", "remove", "Ethernet0", "10.0.0.0/31")
    assert cdb.exists("INTERFACE|Ethernet0") and not cdb.exists("INTERFACE|Ethernet0|10.0.0.0/31")
    nos(run_dir, "config", "interface", "ip", "remove", "Ethernet0", "fc00::/126")
    assert not cdb.keys("INTERFACE|*")


def test_vlan_and_members(sku_config, raw, run_dir):
    nos(run_dir, "config", "vlan", "add", "100")
    nos(run_dir, "config", "vlan", "add", "-m", "200-202")
    nos(run_dir, "config", "vlan", "member", "add", "-u", "100", "Ethernet0")
    nos(run_dir, "config", "vlan", "member", "add", "100", "Ethernet4")
    cdb = raw(4)
    assert cdb.hgetall("VLAN|Vlan100") == {"vlanid": "100"} and cdb.hgetall("VLAN|Vlan202") == {"vlanid": "202"}
    assert cdb.hgetall("VLAN_MEMBER|Vlan100|Ethernet0") == {"tagging_mode": "untagged"}
    assert cdb.hgetall("VLAN_MEMBER|Vlan100|Ethernet4") == {"tagging_mode": "tagged"}

    result = nos(run_dir, "config", "vlan", "member", "add", "-u", "200", "Ethernet0", code=2)
    assert "Ethernet0 is already untagged member!" in result.output and "CONFIG_DB unchanged." in result.output
    result = nos(run_dir, "config", "vlan", "del", "100", code=2)
    assert "VLAN ID 100 can not be removed. First remove all members assigned to this VLAN." in result.output

    nos(run_dir, "config", "vlan", "member", "del", "100", "Ethernet0")
    nos(run_dir, "config", "vlan", "member", "del", "100", "Ethernet4")
    nos(run_dir, "config", "vlan", "del", "100")
    nos(run_dir, "config", "vlan", "del", "-m", "200,201-202")
    assert not cdb.keys("VLAN*")


def test_multiple_vlans_are_all_or_nothing(sku_config, raw, run_dir):
    nos(run_dir, "config", "vlan", "add", "102")
    before = config_dump(raw)
    result = nos(run_dir, "config", "vlan", "add", "-m", "100-103", code=2)
    assert "Vlan102 already exists." in result.output
    assert config_dump(raw) == before  # SONiC would have written Vlan100 and Vlan101 first


def test_portchannel_and_members(sku_config, raw, run_dir):
    nos(run_dir, "config", "portchannel", "add", "PortChannel0001")
    nos(run_dir, "config", "portchannel", "add", "PortChannel0002", "--min-links", "2", "--fallback", "true",
        "--fast-rate", "true")
    nos(run_dir, "config", "portchannel", "member", "add", "PortChannel0001", "Ethernet0")
    cdb = raw(4)
    assert cdb.hgetall("PORTCHANNEL|PortChannel0001") == {
        "admin_status": "up", "mtu": "9100", "lacp_key": "auto", "fast_rate": "false", "min_links": "1"}
    assert cdb.hgetall("PORTCHANNEL|PortChannel0002") == {
        "admin_status": "up", "mtu": "9100", "lacp_key": "auto", "fast_rate": "true", "min_links": "2",
        "fallback": "true"}
    assert cdb.hgetall("PORTCHANNEL_MEMBER|PortChannel0001|Ethernet0") == {"NULL": "NULL"}

    before = config_dump(raw)
    result = nos(run_dir, "config", "portchannel", "member", "add", "PortChannel0002", "Ethernet0", code=2)
    assert "Ethernet0 Interface is already member of PortChannel0001" in result.output
    result = nos(run_dir, "config", "portchannel", "del", "PortChannel0001", code=2)
    assert "contains members" in result.output
    assert config_dump(raw) == before

    nos(run_dir, "config", "portchannel", "member", "del", "PortChannel0001", "Ethernet0")
    nos(run_dir, "config", "portchannel", "del", "PortChannel0001")
    assert not cdb.exists("PORTCHANNEL|PortChannel0001", "PORTCHANNEL_MEMBER|PortChannel0001|Ethernet0")


def test_dry_run_prints_the_patch_and_changes_nothing(sku_config, raw, run_dir):
    before = config_dump(raw)
    result = nos(run_dir, "config", "vlan", "add", "100", "--dry-run")
    lines = result.output.splitlines()
    assert lines[0] == "** DRY RUN EXECUTION **" and lines[-1] == "CONFIG_DB unchanged. (dry run)"
    assert json.loads("\n".join(lines[1:-1])) == [
        {"op": "add", "path": "/VLAN", "value": {"Vlan100": {"vlanid": "100"}}}]
    result = nos(run_dir, "config", "interface", "mtu", "Ethernet0", "1500", "-d")
    assert json.loads("\n".join(result.output.splitlines()[1:-1])) == [
        {"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "1500"}]
    assert config_dump(raw) == before


def test_a_command_without_a_running_switch_says_so(tmp_path):
    result = nos(str(tmp_path), "config", "vlan", "add", "100", code=1)
    assert "no switch is running" in result.output
