"""The RoCE intent over gNMI (pygnmi): ``ROCE|global`` is an ordinary sonic-db CONFIG_DB path; a Set is
validated like every other (a bad field aborts naming it) and the intent manager expands it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pygnmi.client import gNMIclient, gNMIException

from nos.cfgmgr.roce import RoceMgr
from nos.config.apply import reload_config
from nos.daemon.runner import Runner
from nos.db import ConfigDBConnector
from nos.platform.sku import DEFAULT_SKU, load_sku
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until

pytestmark = pytest.mark.integration
ROCE = "sonic-db:/CONFIG_DB/localhost/ROCE/global"


@pytest.fixture
def sku_client(dbs, start_server) -> Iterator[tuple[gNMIclient, ConfigDBConnector]]:
    cdb = ConfigDBConnector(dbs[CONFIG_DB])
    reload_config(cdb, load_sku(DEFAULT_SKU).default_config())
    server = start_server()
    with gNMIclient(target=("127.0.0.1", server.port), insecure=True, gnmi_timeout=10) as gc:
        yield gc, cdb


def test_set_get_and_the_manager_expands_it(dbs, sku_client):
    client, cdb = sku_client
    client.set(update=[(ROCE, {"profile": "sonic", "pfcwd": "off"})], encoding="json_ietf")
    reply = client.get(path=[ROCE], encoding="json_ietf")
    assert reply["notification"][0]["update"][0]["val"] == {"profile": "sonic", "pfcwd": "off"}
    client.set(update=[(f"{ROCE}/cable_length", "40m")], encoding="json_ietf")
    assert cdb.get_entry("ROCE", "global")["cable_length"] == "40m"

    runner = Runner("cfgmgrd", strict=True, retry_interval=0.05)
    RoceMgr(dbs).register(dbs, runner)
    def pg_profile():
        runner.step(max_wait=0.02)
        return cdb.get_entry("BUFFER_PG", "Ethernet0|3-4").get("profile")

    wait_until(lambda: pg_profile() == "pg_lossless_400000_40m_profile", timeout=10)
    assert cdb.get_entry("PORT_QOS_MAP", "Ethernet0")["dscp_to_tc_map"] == "ROCE"

    client.set(delete=[ROCE], encoding="json_ietf")
    wait_until(lambda: (runner.step(max_wait=0.02), cdb.get_table("NOS_ROCE_SAVED"))[1] == {}, timeout=10)
    assert cdb.get_entry("PORT_QOS_MAP", "Ethernet0")["dscp_to_tc_map"] == "AZURE"


def test_a_bad_field_aborts_naming_it(sku_client):
    client, cdb = sku_client
    with pytest.raises(gNMIException) as error:
        client.set(update=[(ROCE, {"cnp_dscp": "26"})], encoding="json_ietf")
    assert "ROCE|global: field 'cnp_dscp' = '26'" in str(error.value)
    with pytest.raises(gNMIException) as error:  # the SKU has no headroom row for 7 m
        client.set(update=[(ROCE, {"cable_length": "7m"})], encoding="json_ietf")
    assert "ROCE|global: field 'cable_length' = '7m'" in str(error.value)
    assert cdb.get_entry("ROCE", "global") == {}
