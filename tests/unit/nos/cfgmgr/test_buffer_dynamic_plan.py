"""The dynamic model's APPL_DB content from plain CONFIG_DB/STATE_DB rows."""

from __future__ import annotations

import pytest

from nos.cfgmgr.buffer_dynamic_plan import PG, POOL, PROFILE, QUEUE, DynInputs, plan, port_speed
from nos.cfgmgr.buffer_headroom import AsicConstants

ZERO = {
    "ingress_lossy_pg_zero_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "-8"},
    "egress_lossy_zero_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "-8"},
    "egress_lossless_zero_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": "0"},
}


@pytest.fixture
def inputs() -> DynInputs:
    return DynInputs(
        pools={"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic"},
               "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "12766208"},
               "egress_lossy_pool": {"type": "egress", "mode": "dynamic"}},
        profiles={"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"},
                  "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": "12766208"},
                  "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}},
        pgs={"Ethernet0|0": {"profile": "ingress_lossy_profile"}, "Ethernet0|3-4": {"profile": "NULL"}},
        queues={"Ethernet0|0-2": {"profile": "egress_lossy_profile"},
                "Ethernet0|3-4": {"profile": "egress_lossless_profile"},
                "Ethernet0|5-6": {"profile": "egress_lossy_profile"}},
        ports={"Ethernet0": {"speed": "100000", "mtu": "9100", "admin_status": "up"}},
        cables={"Ethernet0": "5m"},
        asic=AsicConstants(144, 18, 0.8, 3.8),
        max_params={"global": {"mmu_size": "12766208"}, "Ethernet0": {"max_queues": "8", "max_headroom_size": "0"}},
        zero_profiles=ZERO,
    )


def test_null_pg_gets_a_generated_profile(inputs: DynInputs) -> None:
    result = plan(inputs)
    assert result.rows[PG]["Ethernet0:3-4"] == {"profile": "pg_lossless_100000_5m_profile"}
    assert result.rows[PROFILE]["pg_lossless_100000_5m_profile"] == {
        "pool": "ingress_lossless_pool", "xon": "18432", "xoff": "81920", "size": "100352", "dynamic_th": "0"}
    assert result.rows[PG]["Ethernet0:0"] == {"profile": "ingress_lossy_profile"}
    assert result.rows[QUEUE]["Ethernet0:3-4"] == {"profile": "egress_lossless_profile"}
    assert not result.errors


def test_pool_sizes_are_the_buffer_less_what_ports_reserve(inputs: DynInputs) -> None:
    pools = plan(inputs).rows[POOL]
    assert pools["ingress_lossless_pool"]["size"] == str(12766208 - 2 * 100352)
    assert pools["egress_lossy_pool"]["size"] == str(12766208 - 5 * 1518)  # queues 0-2 and 5-6
    assert pools["egress_lossless_pool"]["size"] == "12766208"


def test_mtu_and_autoneg_change_the_profile(inputs: DynInputs) -> None:
    inputs.ports["Ethernet0"]["mtu"] = "1500"
    assert plan(inputs).rows[PG]["Ethernet0:3-4"]["profile"] == "pg_lossless_100000_5m_mtu1500_profile"
    inputs.ports["Ethernet0"].update(mtu="9100", autoneg="on", adv_speeds="10000,25000,50000")
    assert plan(inputs).rows[PG]["Ethernet0:3-4"]["profile"] == "pg_lossless_50000_5m_profile"
    assert port_speed({"speed": "100000", "autoneg": "off", "adv_speeds": "10000"}) == "100000"


def test_admin_down_port_gets_zero_profiles(inputs: DynInputs) -> None:
    inputs.ports["Ethernet0"]["admin_status"] = "down"
    rows = plan(inputs).rows
    assert "Ethernet0:3-4" not in rows[PG]
    assert rows[PG]["Ethernet0:0"] == {"profile": "ingress_lossy_pg_zero_profile"}
    assert rows[QUEUE] == {"Ethernet0:0-2": {"profile": "egress_lossy_zero_profile"},
                           "Ethernet0:3-4": {"profile": "egress_lossless_zero_profile"},
                           "Ethernet0:5-6": {"profile": "egress_lossy_zero_profile"},
                           "Ethernet0:7-7": {"profile": "egress_lossy_zero_profile"}}
    assert "pg_lossless_100000_5m_profile" not in rows[PROFILE]


def test_headroom_over_the_port_limit_is_refused_and_keeps_what_was_there(inputs: DynInputs) -> None:
    inputs.max_params["Ethernet0"]["max_headroom_size"] = "150000"
    result = plan(inputs)
    assert "Ethernet0:3-4" not in result.rows[PG]
    # 4096 + 18 KiB lossy PG overhead + 20 KiB egress mirror + PG 0 (size 0: 18 KiB) + 2 x 100352
    assert "262144 bytes, not below the port's max_headroom_size 150000" in result.errors[(PG, "Ethernet0|3-4")]
    inputs.previous_pgs = {"Ethernet0:3-4": {"profile": "old_profile"}}
    assert plan(inputs).rows[PG]["Ethernet0:3-4"] == {"profile": "old_profile"}


def test_missing_cable_is_an_error(inputs: DynInputs) -> None:
    inputs.cables.clear()
    result = plan(inputs)
    assert result.errors[(PG, "Ethernet0|3-4")] == "port Ethernet0 has no CABLE_LENGTH"


@pytest.mark.parametrize("field, value", [("speed", "²"), ("mtu", "9¹00"), ("speed", "-1")])
def test_digits_int_cannot_read_are_an_error_not_a_crash(inputs: DynInputs, field: str, value: str) -> None:
    inputs.ports["Ethernet0"][field] = value  # '²'.isdigit() is true; int('²') raises
    result = plan(inputs)
    assert "Ethernet0" in " ".join(str(e) for e in result.errors.values())


def test_headroom_type_dynamic_profile_gives_a_th_profile(inputs: DynInputs) -> None:
    """test_nonDefaultAlpha: the template is not in APPL_DB; its dynamic_th names and fills the profile."""
    inputs.profiles["alpha"] = {"dynamic_th": "1", "headroom_type": "dynamic", "pool": "ingress_lossless_pool"}
    inputs.pgs["Ethernet0|3-4"] = {"profile": "alpha"}
    rows = plan(inputs).rows
    assert rows[PG]["Ethernet0:3-4"] == {"profile": "pg_lossless_100000_5m_th1_profile"}
    assert rows[PROFILE]["pg_lossless_100000_5m_th1_profile"]["dynamic_th"] == "1"
    assert "alpha" not in rows[PROFILE]
    inputs.profiles["alpha"]["dynamic_th"] = "0"  # the default threshold: no suffix
    assert plan(inputs).rows[PG]["Ethernet0:3-4"] == {"profile": "pg_lossless_100000_5m_profile"}


def test_zero_pg_ids_remove_every_pg_of_a_down_port(inputs: DynInputs) -> None:
    """vs zero_profiles.json pgs_to_apply_zero_profile "0": a lossy PG added while down is not in APPL_DB."""
    inputs.zero_pg_ids = "0"
    inputs.ports["Ethernet0"]["admin_status"] = "down"
    inputs.pgs["Ethernet0|1"] = {"profile": "ingress_lossy_profile"}
    assert plan(inputs).rows[PG] == {"Ethernet0:0": {"profile": "ingress_lossy_pg_zero_profile"}}


def test_shared_headroom_pool_size(inputs: DynInputs) -> None:
    """buffer_pool_mellanox.lua: (2 PGs x xoff - 10 KiB private headroom) / ratio; size = xon; configured wins."""
    inputs.over_subscribe_ratio = 2
    rows = plan(inputs).rows
    profile = rows[PROFILE]["pg_lossless_100000_5m_profile"]
    assert profile["size"] == profile["xon"] == "18432"
    assert rows[POOL]["ingress_lossless_pool"]["xoff"] == str(81920 - 5120)
    inputs.over_subscribe_ratio = 4
    assert plan(inputs).rows[POOL]["ingress_lossless_pool"]["xoff"] == str((2 * 81920 - 10240) // 4)
    inputs.pools["ingress_lossless_pool"]["xoff"] = "204800"
    assert plan(inputs).rows[POOL]["ingress_lossless_pool"]["xoff"] == "204800"
    inputs.pools["ingress_lossless_pool"]["xoff"] = "0"  # 0 is "not configured": the ratio applies
    assert plan(inputs).rows[POOL]["ingress_lossless_pool"]["xoff"] == str((2 * 81920 - 10240) // 4)


def test_shared_headroom_pool_turned_off_is_written_as_zero(inputs: DynInputs) -> None:
    assert "xoff" not in plan(inputs).rows[POOL]["ingress_lossless_pool"]
    inputs.previous_pools = {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "xoff": "76800"}}
    rows = plan(inputs).rows
    assert rows[POOL]["ingress_lossless_pool"]["xoff"] == "0"
    assert rows[PROFILE]["pg_lossless_100000_5m_profile"]["size"] == "100352"  # xon + xoff again
    inputs.previous_pools = rows[POOL]  # written once: the field stays, "0"
    assert plan(inputs).rows[POOL]["ingress_lossless_pool"]["xoff"] == "0"


def test_headroom_admission_counts_lossy_pgs_and_keeps_admitted_ones_first(inputs: DynInputs) -> None:
    """test_bufferPortMaxParameter with the vs accounting: limit 122880, profile 'test' of size 29696."""
    inputs.max_params["Ethernet0"]["max_headroom_size"] = "122880"
    inputs.profiles["test"] = {"xon": "19456", "xoff": "10240", "size": "29696", "dynamic_th": "0",
                               "pool": "ingress_lossless_pool"}
    inputs.pgs["Ethernet0|3-4"] = {"profile": "test"}
    inputs.previous_pgs = {"Ethernet0:0": {"profile": "ingress_lossy_profile"}, "Ethernet0:3-4": {"profile": "test"}}
    inputs.pgs["Ethernet0|1"] = {"profile": "ingress_lossy_profile"}
    inputs.pgs["Ethernet0|6"] = {"profile": "test"}
    result = plan(inputs)
    assert set(result.rows[PG]) == {"Ethernet0:0", "Ethernet0:3-4"}  # 43008 + 18432 + 59392 = 120832 < 122880
    assert {key for _, key in result.errors} == {"Ethernet0|1", "Ethernet0|6"}
    del inputs.pgs["Ethernet0|3-4"], inputs.pgs["Ethernet0|6"]
    assert set(plan(inputs).rows[PG]) == {"Ethernet0:0", "Ethernet0:1"}


def test_zero_cable_length_leaves_lossless_pgs_out(inputs: DynInputs) -> None:
    """buffermgrdyn_ut SkipProfileCreationForZeroCableLength: no 0m profile, lossy PG 0 stays, not an error."""
    inputs.cables["Ethernet0"] = "0m"
    inputs.pgs["Ethernet0|6"] = {"profile": "NULL"}
    result = plan(inputs)
    assert result.rows[PG] == {"Ethernet0:0": {"profile": "ingress_lossy_profile"}}
    assert not [name for name in result.rows[PROFILE] if name.startswith("pg_lossless_")]
    assert not result.errors
