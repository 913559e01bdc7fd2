"""Breakout of a 400G cage to 4x100G and back, end to end: CONFIG_DB -> APPL_DB -> ASIC_DB -> STATE_DB."""

from __future__ import annotations

import pytest

from tests.conftest import wait_until
from tests.e2e.conftest import nos, start_switch

pytestmark = pytest.mark.e2e


def asic_port(sw, name):
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", name)
    return sw.db(1).hgetall(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}") if oid else {}


def test_cage_breaks_out_to_4x100g_and_back(tmp_path):
    sw = start_switch(tmp_path / "sw")  # NOS-SIM-128x400G
    try:
        assert asic_port(sw, "Ethernet0")["SAI_PORT_ATTR_HW_LANE_LIST"] == "4:0,1,2,3"
        out = nos("config", "interface", "breakout", "Ethernet0", "4x100G", "--run-dir", str(sw.run_dir))
        assert "every new port is in the ASIC" in out.stdout
        for i in range(4):
            port = asic_port(sw, f"Ethernet{i}")
            assert port["SAI_PORT_ATTR_HW_LANE_LIST"] == f"1:{i}" and port["SAI_PORT_ATTR_SPEED"] == "100000"
            assert sw.db(4).hgetall(f"PORT|Ethernet{i}")["alias"] == f"etp1{'abcd'[i]}"
            wait_until(lambda i=i: sw.db(6).hget(f"PORT_TABLE|Ethernet{i}", "state") == "ok")
        assert sw.db(4).hget("BREAKOUT_CFG|Ethernet0", "brkout_mode") == "4x100G"
        assert sw.db(4).exists("BUFFER_PG|Ethernet3|0") and sw.db(4).exists("PORT_QOS_MAP|Ethernet2")
        assert len(sw.db(2).hkeys("COUNTERS_PORT_NAME_MAP")) == 131

        nos("config", "interface", "breakout", "Ethernet0", "1x400G[200G,100G]", "--run-dir", str(sw.run_dir))
        wait_until(lambda: len(sw.db(2).hkeys("COUNTERS_PORT_NAME_MAP")) == 128)
        # Ethernet0 is re-created once its buffer bindings let go of the 1-lane port (BufferOrch)
        wait_until(lambda: asic_port(sw, "Ethernet0").get("SAI_PORT_ATTR_HW_LANE_LIST") == "4:0,1,2,3")
        port = asic_port(sw, "Ethernet0")
        assert port["SAI_PORT_ATTR_HW_LANE_LIST"] == "4:0,1,2,3" and port["SAI_PORT_ATTR_SPEED"] == "400000"
        wait_until(lambda: not sw.db(6).exists("PORT_TABLE|Ethernet1"))
        assert not sw.db(4).exists("PORT|Ethernet1") and not sw.db(4).exists("BUFFER_PG|Ethernet1|0")
        ports = [k for k in sw.db(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_PORT:*")]
        assert len(ports) == 129  # 128 + CPU
        # cfgmgrd may still hold the last deletes for a moment ("converging"): ready must follow
        wait_until(lambda: sw.nos("status", check=False).returncode == 0, timeout=30, interval=0.2)
    finally:
        sw.close()
        sw.nos("down")


def test_a_mode_the_cage_does_not_offer_is_refused(tmp_path):
    sw = start_switch(tmp_path / "sw")
    try:
        out = nos("config", "interface", "breakout", "Ethernet0", "8x50G", "--run-dir", str(sw.run_dir), check=False)
        assert out.returncode == 1 and "4x100G" in out.stderr  # names the offered modes
        assert not sw.db(4).exists("BREAKOUT_CFG|Ethernet0") or \
            sw.db(4).hget("BREAKOUT_CFG|Ethernet0", "brkout_mode") != "8x50G"
    finally:
        sw.close()
        sw.nos("down")
