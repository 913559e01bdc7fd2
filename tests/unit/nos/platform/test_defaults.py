"""Default startup config_db.json per SKU (nos.platform.defaults)."""

from __future__ import annotations

import json

import pytest

from nos.platform.defaults import ConfigDb, config_db_to_json, sku_to_config_db
from nos.platform.sku import DEFAULT_SKU, load_sku
from nos.schema import tables as t

S6000 = "Force10-S6000"


@pytest.fixture(scope="module")
def big() -> ConfigDb:
    return sku_to_config_db(load_sku(DEFAULT_SKU))


@pytest.fixture(scope="module")
def vs() -> ConfigDb:
    return sku_to_config_db(load_sku(S6000))


@pytest.mark.parametrize(("name", "ports"), [(DEFAULT_SKU, 128), (S6000, 32)])
def test_row_counts(name: str, ports: int) -> None:
    config = sku_to_config_db(load_sku(name))
    counts = {table: len(rows) for table, rows in config.items()}
    assert counts == {
        t.CFG_DEVICE_METADATA_TABLE_NAME: 1,
        t.CFG_PORT_TABLE_NAME: ports,
        t.CFG_BREAKOUT_CFG_TABLE_NAME: ports,
        t.CFG_PORT_CABLE_LEN_TABLE_NAME: 1,
        t.CFG_BUFFER_POOL_TABLE_NAME: 2 if name == DEFAULT_SKU else 3,
        t.CFG_BUFFER_PROFILE_TABLE_NAME: 3,
        t.CFG_BUFFER_PG_TABLE_NAME: ports,
        t.CFG_BUFFER_QUEUE_TABLE_NAME: 3 * ports,
        t.CFG_DSCP_TO_TC_MAP_TABLE_NAME: 1,
        t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME: 1,
        t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME: 1,
        t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME: 1,
        t.CFG_SCHEDULER_TABLE_NAME: 2,
        t.CFG_WRED_PROFILE_TABLE_NAME: 1,
        t.CFG_PORT_QOS_MAP_TABLE_NAME: ports + 1,
        t.CFG_QUEUE_TABLE_NAME: 7 * ports,
        t.CFG_FLEX_COUNTER_TABLE_NAME: 9,
    }
    assert len(config[t.CFG_PORT_CABLE_LEN_TABLE_NAME]["AZURE"]) == ports


def test_400g_counts_from_the_brief(big: ConfigDb) -> None:
    assert len(big[t.CFG_PORT_TABLE_NAME]) == 128
    assert len(big[t.CFG_BUFFER_PG_TABLE_NAME]) == 128
    assert len(big[t.CFG_BUFFER_QUEUE_TABLE_NAME]) == 384
    assert len(big[t.CFG_QUEUE_TABLE_NAME]) == 896


def test_all_values_are_strings(big: ConfigDb, vs: ConfigDb) -> None:
    for config in (big, vs):
        for rows in config.values():
            for row in rows.values():
                assert all(isinstance(v, str) for v in row.values())


def test_device_metadata(big: ConfigDb, vs: ConfigDb) -> None:
    meta = big[t.CFG_DEVICE_METADATA_TABLE_NAME]["localhost"]
    assert meta == {
        "hostname": "sonic",
        "hwsku": DEFAULT_SKU,
        "platform": "x86_64-nos_sim-r0",
        "mac": meta["mac"],
        "type": "LeafRouter",
        "buffer_model": "traditional",
        "synchronous_mode": "enable",
        "default_bgp_status": "up",
        "default_pfcwd_status": "disable",
        "bgp_asn": "65100",
    }
    vs_meta = vs[t.CFG_DEVICE_METADATA_TABLE_NAME]["localhost"]
    assert (vs_meta["hwsku"], vs_meta["platform"]) == (S6000, "x86_64-kvm_x86_64-r0")
    for mac in (meta["mac"], vs_meta["mac"]):
        first = int(mac.split(":")[0], 16)
        assert first & 0b11 == 0b10  # locally administered, unicast
    assert meta["mac"] != vs_meta["mac"]


def test_ports_and_breakout(big: ConfigDb, vs: ConfigDb) -> None:
    assert big[t.CFG_PORT_TABLE_NAME]["Ethernet4"] == {
        "alias": "etp2",
        "lanes": "4,5,6,7",
        "index": "2",
        "speed": "400000",
        "fec": "rs",
        "mtu": "9100",
        "admin_status": "up",
        "autoneg": "off",
    }
    assert vs[t.CFG_PORT_TABLE_NAME]["Ethernet16"] == {
        "alias": "fortyGigE0/16",
        "lanes": "45,46,47,48",
        "index": "4",
        "speed": "100000",
        "mtu": "9100",
        "admin_status": "down",
    }
    assert big[t.CFG_BREAKOUT_CFG_TABLE_NAME]["Ethernet508"] == {"brkout_mode": "1x400G[200G,100G]"}
    assert vs[t.CFG_BREAKOUT_CFG_TABLE_NAME]["Ethernet124"] == {"brkout_mode": "1x100G[40G]"}


def test_buffers_400g(big: ConfigDb) -> None:
    assert big[t.CFG_BUFFER_POOL_TABLE_NAME] == {
        "ingress_lossless_pool": {
            "size": "165660324",
            "type": "ingress",
            "mode": "dynamic",
            "xoff": "29423360",
        },
        "egress_lossless_pool": {"size": "165660324", "type": "egress", "mode": "dynamic"},
    }
    assert big[t.CFG_BUFFER_PROFILE_TABLE_NAME] == {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "static_th": "167546528"},
        "egress_lossy_profile": {"pool": "egress_lossless_pool", "size": "1778", "dynamic_th": "0"},
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": "167546528"},
    }
    assert set(big[t.CFG_PORT_CABLE_LEN_TABLE_NAME]["AZURE"].values()) == {"5m"}


def test_buffers_s6000(vs: ConfigDb) -> None:
    assert vs[t.CFG_BUFFER_POOL_TABLE_NAME] == {
        "ingress_lossless_pool": {"size": "12766208", "type": "ingress", "mode": "dynamic"},
        "egress_lossless_pool": {"size": "12766208", "type": "egress", "mode": "static"},
        "egress_lossy_pool": {"size": "7326924", "type": "egress", "mode": "dynamic"},
    }
    assert vs[t.CFG_BUFFER_PROFILE_TABLE_NAME] == {
        "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": "12766208"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"},
    }
    assert set(vs[t.CFG_PORT_CABLE_LEN_TABLE_NAME]["AZURE"].values()) == {"300m"}


def test_buffer_pg_and_queue(big: ConfigDb) -> None:
    pg = big[t.CFG_BUFFER_PG_TABLE_NAME]
    assert pg["Ethernet0|0"] == {"profile": "ingress_lossy_profile"}
    assert all(key.endswith("|0") for key in pg)  # traditional model: lossless PGs come from buffermgrd
    queue = big[t.CFG_BUFFER_QUEUE_TABLE_NAME]
    assert queue["Ethernet12|0-2"] == {"profile": "egress_lossy_profile"}
    assert queue["Ethernet12|3-4"] == {"profile": "egress_lossless_profile"}
    assert queue["Ethernet12|5-6"] == {"profile": "egress_lossy_profile"}


def test_qos_maps(big: ConfigDb) -> None:
    dscp = big[t.CFG_DSCP_TO_TC_MAP_TABLE_NAME]["AZURE"]
    assert len(dscp) == 64
    special = {"3": "3", "4": "4", "5": "2", "8": "0", "46": "5", "48": "6"}
    assert dscp == {str(d): special.get(str(d), "1") for d in range(64)}
    identity = {str(i): str(i) for i in range(8)}
    assert big[t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME] == {"AZURE": identity}
    assert big[t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME] == {"AZURE": identity}
    assert big[t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME]["AZURE"] == {
        "0": "0",
        "1": "0",
        "2": "0",
        "3": "3",
        "4": "4",
        "5": "0",
        "6": "0",
        "7": "7",
    }
    assert big[t.CFG_SCHEDULER_TABLE_NAME] == {
        "scheduler.0": {"type": "DWRR", "weight": "14"},
        "scheduler.1": {"type": "DWRR", "weight": "15"},
    }


def test_wred_profile(big: ConfigDb) -> None:
    assert big[t.CFG_WRED_PROFILE_TABLE_NAME] == {
        "AZURE_LOSSLESS": {
            "wred_green_enable": "true",
            "wred_yellow_enable": "true",
            "wred_red_enable": "true",
            "ecn": "ecn_all",
            "green_max_threshold": "2097152",
            "green_min_threshold": "1048576",
            "yellow_max_threshold": "2097152",
            "yellow_min_threshold": "1048576",
            "red_max_threshold": "2097152",
            "red_min_threshold": "1048576",
            "green_drop_probability": "5",
            "yellow_drop_probability": "5",
            "red_drop_probability": "5",
        }
    }


def test_port_qos_map_and_queues(big: ConfigDb) -> None:
    qos = big[t.CFG_PORT_QOS_MAP_TABLE_NAME]
    assert qos["global"] == {"dscp_to_tc_map": "AZURE"}
    assert qos["Ethernet508"] == {
        "dscp_to_tc_map": "AZURE",
        "tc_to_queue_map": "AZURE",
        "tc_to_pg_map": "AZURE",
        "pfc_to_queue_map": "AZURE",
        "pfc_enable": "3,4",
        "pfcwd_sw_enable": "3,4",
    }
    queues = big[t.CFG_QUEUE_TABLE_NAME]
    for q in ("3", "4"):
        assert queues[f"Ethernet8|{q}"] == {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    for q in ("0", "1", "2", "5", "6"):
        assert queues[f"Ethernet8|{q}"] == {"scheduler": "scheduler.0"}
    assert "Ethernet8|7" not in queues


def test_flex_counters(big: ConfigDb) -> None:
    groups = {
        "PORT",
        "QUEUE",
        "PG_WATERMARK",
        "PG_DROP",
        "QUEUE_WATERMARK",
        "BUFFER_POOL_WATERMARK",
        "PFCWD",
        "PORT_BUFFER_DROP",
        "RIF",
    }
    assert big[t.CFG_FLEX_COUNTER_TABLE_NAME] == {g: {"FLEX_COUNTER_STATUS": "enable"} for g in groups}


def test_json_format_is_config_save_style(vs: ConfigDb) -> None:
    text = config_db_to_json(vs)
    assert json.loads(text) == vs
    assert text.endswith("}\n")
    assert text.startswith('{\n    "BREAKOUT_CFG": {\n        "Ethernet0": {\n            "brkout_mode"')
    assert text == json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n"


@pytest.mark.parametrize("name", [DEFAULT_SKU, S6000])
def test_committed_default_config_is_what_defaults_builds(name: str) -> None:
    sku = load_sku(name)
    assert sku.default_config() == sku_to_config_db(sku)
