"""plan_breakout: config interface breakout as a pure plan, on the 128x400G SKU's default config.

(Named test_breakout_plan.py: tests/unit/nos/platform/test_breakout.py already owns the basename.)
"""

from __future__ import annotations

import copy

import pytest

from nos.cfgmgr.breakout import BreakoutRefused, cage_port_names, in_mode, plan_breakout, target_ports
from nos.db import RowChange
from nos.platform.sku import DEFAULT_SKU, Sku, load_sku

DEFAULT_MODE = "1x400G[200G,100G]"
PER_PORT_TABLES = ("BUFFER_PG", "BUFFER_QUEUE", "PORT_QOS_MAP", "QUEUE")


@pytest.fixture(scope="module")
def sku() -> Sku:
    return load_sku(DEFAULT_SKU)


@pytest.fixture
def config(sku: Sku) -> dict:
    return copy.deepcopy(sku.default_config())


def apply(config: dict, changes: list[RowChange]) -> dict:
    """What ConfigDBConnector.apply does to CONFIG_DB, on a config_db.json dict."""
    out = copy.deepcopy(config)
    for change in changes:
        rows = out.setdefault(change.table, {})
        if change.mode == "delete":
            rows.pop(change.key, None)
        elif change.mode == "replace":
            rows[change.key] = dict(change.row or {})
        else:
            rows[change.key] = {**rows.get(change.key, {}), **(change.row or {})}
        if not rows:
            del out[change.table]
    return out


def rows_of(config: dict, table: str, port: str) -> dict:
    return {k: v for k, v in config.get(table, {}).items() if k == port or k.startswith(port + "|")}


def test_breakout_to_4x100g(sku, config):
    after = apply(config, plan_breakout(config, sku, "Ethernet0", "4x100G"))
    for i in range(4):
        port = after["PORT"][f"Ethernet{i}"]
        assert port == {"alias": f"etp1{'abcd'[i]}", "lanes": str(i), "index": "1", "speed": "100000",
                        "fec": "rs", "autoneg": "off", "mtu": "9100", "admin_status": "up",
                        "subport": str(i + 1)}
        assert after["CABLE_LENGTH"]["AZURE"][f"Ethernet{i}"] == "5m"
        assert after["BUFFER_PG"][f"Ethernet{i}|0"] == {"profile": "ingress_lossy_profile"}
        assert {k: v["profile"] for k, v in rows_of(after, "BUFFER_QUEUE", f"Ethernet{i}").items()} == {
            f"Ethernet{i}|0-2": "egress_lossy_profile", f"Ethernet{i}|3-4": "egress_lossless_profile",
            f"Ethernet{i}|5-6": "egress_lossy_profile"}
        assert after["PORT_QOS_MAP"][f"Ethernet{i}"] == config["PORT_QOS_MAP"]["Ethernet4"]
        assert len(rows_of(after, "QUEUE", f"Ethernet{i}")) == 7
    assert after["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "4x100G"}
    # the neighbour cage is untouched
    for table in ("PORT", *PER_PORT_TABLES):
        assert rows_of(after, table, "Ethernet4") == rows_of(config, table, "Ethernet4")
    assert len(after["PORT"]) == 131


def test_and_back_to_1x400g_restores_the_default_config(sku, config):
    broken = apply(config, plan_breakout(config, sku, "Ethernet0", "4x100G"))
    back = apply(broken, plan_breakout(broken, sku, "Ethernet0", DEFAULT_MODE))
    assert back == config
    assert all(f"Ethernet{i}" not in back["CABLE_LENGTH"]["AZURE"] for i in (1, 2, 3))
    assert not rows_of(back, "BUFFER_QUEUE", "Ethernet3")


def test_admin_status_follows_the_parent(sku, config):
    config["PORT"]["Ethernet0"]["admin_status"] = "down"
    after = apply(config, plan_breakout(config, sku, "Ethernet0", "2x200G"))
    assert {after["PORT"][p]["admin_status"] for p in ("Ethernet0", "Ethernet2")} == {"down"}
    assert after["PORT"]["Ethernet2"]["lanes"] == "2,3"
    assert after["PORT"]["Ethernet2"]["speed"] == "200000"


def test_dependent_config_of_removed_ports_goes(sku, config):
    config["VLAN"] = {"Vlan100": {"vlanid": "100", "members": ["Ethernet0", "Ethernet4"]}}
    config["VLAN_MEMBER"] = {"Vlan100|Ethernet0": {"tagging_mode": "untagged"},
                             "Vlan100|Ethernet4": {"tagging_mode": "tagged"}}
    config["PORTCHANNEL"] = {"PortChannel1": {"mtu": "9100", "members": ["Ethernet0"]}}
    config["PORTCHANNEL_MEMBER"] = {"PortChannel1|Ethernet0": {}}
    config["INTERFACE"] = {"Ethernet0": {}, "Ethernet0|10.0.0.0/31": {}, "Ethernet4|10.0.0.2/31": {}}
    config["VLAN_SUB_INTERFACE"] = {"Ethernet0.10": {"vlan": "10"}, "Ethernet0.10|10.1.0.0/31": {}}
    config["PFC_WD"] = {"Ethernet0": {"action": "drop"}, "GLOBAL": {"POLL_INTERVAL": "200"}}
    config["BUFFER_PORT_INGRESS_PROFILE_LIST"] = {"Ethernet0": {"profile_list": ["ingress_lossy_profile"]}}
    config["BUFFER_PORT_EGRESS_PROFILE_LIST"] = {"Ethernet0": {"profile_list": ["egress_lossy_profile"]}}
    config["BUFFER_PG"]["Ethernet0,Ethernet4|3-4"] = {"profile": "pg_lossless_400000_5m_profile"}
    config["ACL_TABLE"] = {"DATAACL": {"type": "L3", "ports": ["Ethernet0", "Ethernet4"]}}
    after = apply(config, plan_breakout(config, sku, "Ethernet0", "4x100G"))
    assert after["VLAN_MEMBER"] == {"Vlan100|Ethernet4": {"tagging_mode": "tagged"}}
    assert after["VLAN"]["Vlan100"]["members"] == ["Ethernet4"]
    assert "PORTCHANNEL_MEMBER" not in after
    assert after["PORTCHANNEL"]["PortChannel1"]["members"] == []
    assert after["INTERFACE"] == {"Ethernet4|10.0.0.2/31": {}}
    assert "VLAN_SUB_INTERFACE" not in after
    assert after["PFC_WD"] == {"GLOBAL": {"POLL_INTERVAL": "200"}}
    assert "BUFFER_PORT_INGRESS_PROFILE_LIST" not in after and "BUFFER_PORT_EGRESS_PROFILE_LIST" not in after
    assert after["BUFFER_PG"]["Ethernet4|3-4"] == {"profile": "pg_lossless_400000_5m_profile"}
    assert "Ethernet0,Ethernet4|3-4" not in after["BUFFER_PG"]
    assert after["ACL_TABLE"]["DATAACL"]["ports"] == ["Ethernet4"]


def test_defaults_only_go_into_tables_the_config_uses(sku, config):
    for table in ("QUEUE", "PORT_QOS_MAP", "CABLE_LENGTH"):
        del config[table]
    after = apply(config, plan_breakout(config, sku, "Ethernet0", "4x100G"))
    assert "QUEUE" not in after and "CABLE_LENGTH" not in after
    assert "PORT_QOS_MAP" not in after
    assert "Ethernet3|0" in after["BUFFER_PG"]


def test_nothing_to_do_in_the_current_mode(sku, config):
    assert plan_breakout(config, sku, "Ethernet0", DEFAULT_MODE) == []
    config["BREAKOUT_CFG"]["Ethernet0"] = {"brkout_mode": "4x100G"}  # record wrong, ports right
    assert plan_breakout(config, sku, "Ethernet0", DEFAULT_MODE) == [
        RowChange("BREAKOUT_CFG", "Ethernet0", "merge", {"brkout_mode": DEFAULT_MODE})]


def test_in_mode_compares_names_lanes_and_speeds(sku, config):
    target = target_ports(sku, "Ethernet0", DEFAULT_MODE)
    current = {n: config["PORT"][n] for n in cage_port_names(sku, "Ethernet0") if n in config["PORT"]}
    assert in_mode(current, target)
    assert not in_mode(current, target_ports(sku, "Ethernet0", "4x100G"))
    assert cage_port_names(sku, "Ethernet0") == {"Ethernet0", "Ethernet1", "Ethernet2", "Ethernet3"}


def test_a_mode_not_offered_is_refused_naming_the_parent_and_the_offered_modes(sku, config):
    with pytest.raises(BreakoutRefused) as err:
        plan_breakout(config, sku, "Ethernet0", "8x50G")
    assert "Ethernet0" in str(err.value)
    for mode in (DEFAULT_MODE, "2x200G", "4x100G"):
        assert mode in str(err.value)


@pytest.mark.parametrize("parent", ["Ethernet1", "Ethernet512", "PortChannel1"])
def test_a_parent_that_is_not_a_cage_is_refused(sku, config, parent):
    with pytest.raises(BreakoutRefused, match=parent):
        plan_breakout(config, sku, parent, "4x100G")
