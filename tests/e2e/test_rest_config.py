"""REST over a whole switch: a change made over REST reaches CONFIG_DB and the ASIC; a change made with
ConfigDBConnector is seen over REST (config, state and counters)."""

from __future__ import annotations

import httpx
import pytest

from nos.db import ConfigDBConnector, Databases
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch

pytestmark = pytest.mark.e2e

MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU counts the Ethernet header, FCS and one VLAN tag (portsorch)


@pytest.fixture(scope="module")
def switch(switch_s6000: RunningSwitch) -> RunningSwitch:
    return switch_s6000


def asic_mtu(sw: RunningSwitch, port: str) -> str | None:
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", port)
    return sw.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") if oid else None


def test_a_rest_patch_reaches_config_db_and_the_asic(switch: RunningSwitch) -> None:
    rest = switch.endpoints["rest"]
    reply = httpx.patch(f"{rest}/api/v1/config/PORT/Ethernet0", json=[{"op": "replace", "path": "/mtu", "value": 1500}],
                        headers={"Content-Type": "application/json-patch+json"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["applied"] is True
    assert switch.db(4).hget("PORT|Ethernet0", "mtu") == "1500"
    wait_until(lambda: asic_mtu(switch, "Ethernet0") == str(1500 + MTU_OVERHEAD), timeout=15)
    wait_until(lambda: httpx.get(f"{rest}/api/v1/state/interfaces/Ethernet0").json()["mtu"] == "1500", timeout=15)


def test_a_refused_rest_write_changes_neither_config_db_nor_the_asic(switch: RunningSwitch) -> None:
    rest = switch.endpoints["rest"]
    before = asic_mtu(switch, "Ethernet8")
    patch = [{"op": "replace", "path": "/PORT/Ethernet8/mtu", "value": "4000"},
             {"op": "replace", "path": "/PORT/Ethernet12/mtu", "value": "1"}]
    reply = httpx.patch(f"{rest}/api/v1/config", json=patch)
    assert reply.status_code == 400
    [error] = reply.json()["ietf-restconf:errors"]["error"]
    assert error["error-path"] == "/PORT/Ethernet12/mtu"
    assert switch.db(4).hget("PORT|Ethernet8", "mtu") != "4000" and asic_mtu(switch, "Ethernet8") == before


def test_a_config_db_change_is_visible_over_rest(switch: RunningSwitch) -> None:
    rest = switch.endpoints["rest"]
    dbs = Databases(switch.endpoints["redis"])
    try:
        ConfigDBConnector(dbs[CONFIG_DB]).mod_entry("PORT", "Ethernet4", {"description": "to-spine-1", "mtu": "4000"})
    finally:
        dbs.close()
    row = httpx.get(f"{rest}/api/v1/config/PORT/Ethernet4").json()
    assert row["description"] == "to-spine-1" and row["mtu"] == "4000"
    wait_until(lambda: httpx.get(f"{rest}/api/v1/state/interfaces/Ethernet4").json()["mtu"] == "4000", timeout=15)
    wait_until(lambda: asic_mtu(switch, "Ethernet4") == str(4000 + MTU_OVERHEAD), timeout=15)
    counters = httpx.get(f"{rest}/api/v1/counters/interfaces").json()
    assert len(counters) == 32 and "Ethernet4" in counters
