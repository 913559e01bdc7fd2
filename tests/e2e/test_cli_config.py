"""``nos config`` commands on a running switch reach the ASIC: CONFIG_DB -> cfgmgrd -> orchagent -> ASIC_DB."""

from __future__ import annotations

import pytest

from tests.conftest import wait_until
from tests.e2e.conftest import start_switch

pytestmark = pytest.mark.e2e


def _asic_objects(sw, kind: str) -> list[dict[str, str]]:
    return [sw.db(1).hgetall(key) for key in sw.db(1).keys(f"ASIC_STATE:SAI_OBJECT_TYPE_{kind}:*")]


def test_vlan_member_and_shutdown_reach_asic_db(tmp_path):
    sw = start_switch(tmp_path / "sw")
    try:
        sw.nos("config", "vlan", "add", "100")
        sw.nos("config", "vlan", "member", "add", "-u", "100", "Ethernet0")
        sw.nos("config", "interface", "shutdown", "Ethernet4")
        refused = sw.nos("config", "vlan", "member", "add", "100", "Ethernet999", check=False)
        assert refused.returncode == 2 and "Ethernet999 does not exist" in refused.stderr

        vlan = wait_until(lambda: next((o for o in _asic_objects(sw, "VLAN")
                                        if o.get("SAI_VLAN_ATTR_VLAN_ID") == "100"), None), timeout=15)
        assert vlan
        untagged = "SAI_VLAN_TAGGING_MODE_UNTAGGED"
        members = wait_until(lambda: [m for m in _asic_objects(sw, "VLAN_MEMBER")
                                      if m.get("SAI_VLAN_MEMBER_ATTR_VLAN_TAGGING_MODE") == untagged], timeout=15)
        assert len(members) == 1
        port4 = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet4")
        wait_until(lambda: sw.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{port4}",
                                         "SAI_PORT_ATTR_ADMIN_STATE") == "false", timeout=15)
        shown = sw.nos("show", "vlan", "config").stdout
        assert "Vlan100    100  Ethernet0  untagged" in shown
    finally:
        sw.close()
        sw.nos("down")
