"""The switch's own tables (``NOS_*``) through gNMI (pygnmi): Get reads them, Set never writes them,
whether it names one or would change one by replacing or deleting the whole DB; Set writes CONFIG_DB
only."""

from __future__ import annotations

import json

import grpc
import pytest
from pygnmi.client import gNMIclient, gNMIException

from nos.db import ConfigDBConnector
from nos.schema.dbconfig import CONFIG_DB

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"
SAVED = "NOS_ROCE_SAVED"
SAVED_ROW = {"Ethernet0": json.dumps({"mtu": "9100"})}
FORGED = json.dumps({"mtu": "1500"})  # a row the intent would "restore" when turned off


@pytest.fixture
def cdb(seeded):
    connector = ConfigDBConnector(seeded[CONFIG_DB])
    connector.mod_entry(SAVED, "PORT", SAVED_ROW)
    return connector


def refused(client: gNMIclient, cdb: ConfigDBConnector, **kwargs: object) -> str:
    """The details of a refused Set (asserting it changed nothing)."""
    before = cdb.get_config()
    with pytest.raises(gNMIException) as error:
        client.set(encoding="json_ietf", **kwargs)
    rpc = error.value.orig_exc
    assert rpc.code() == grpc.StatusCode.ABORTED and "nothing applied" in rpc.details()
    assert cdb.get_config() == before
    return str(rpc.details())


@pytest.mark.parametrize("kwargs", [
    {"update": [(f"{N}/{SAVED}/PORT", {"Ethernet0": FORGED})]},
    {"update": [(f"{N}/{SAVED}/PORT/Ethernet0", FORGED)]},
    {"replace": [(f"{N}/{SAVED}", {"PORT": SAVED_ROW})]},  # even with what it holds
    {"delete": [f"{N}/{SAVED}/PORT"]},
    {"delete": [f"{N}/{SAVED}"]},
    {"delete": [f"{N}/NOS_CONFIG_GENERATION"]},
    {"update": [(f"{N}/PORT/Ethernet0/mtu", "1500"), (f"{N}/NOS_ANYTHING/x", {"a": "1"})]},
])
def test_a_set_naming_an_internal_table_is_refused(client, cdb, kwargs):
    details = refused(client, cdb, **kwargs)
    assert "PERMISSION_DENIED" in details and "is internal to the switch" in details


def test_a_whole_db_replace_or_delete_must_keep_the_internal_tables(client, cdb):
    whole = cdb.get_config()
    without = {name: rows for name, rows in whole.items() if name != SAVED}
    for kwargs in ({"replace": [(N, without)]}, {"delete": [N]},
                   {"update": [(N, {SAVED: {"PORT": {"Ethernet4": FORGED}}})]}):
        details = refused(client, cdb, **kwargs)
        assert f"PERMISSION_DENIED: table {SAVED} is internal" in details
    whole["VLAN"]["Vlan7"] = {"vlanid": "7"}
    client.set(replace=[(N, whole)], encoding="json_ietf")  # the internal rows as they are: accepted
    assert cdb.get_entry("VLAN", "Vlan7") == {"vlanid": "7"} and cdb.get_entry(SAVED, "PORT") == SAVED_ROW


def test_get_reads_an_internal_table(client, cdb):
    reply = client.get(path=[f"{N}/{SAVED}/PORT"], encoding="json_ietf")
    assert reply["notification"][0]["update"][0]["val"] == SAVED_ROW


@pytest.mark.parametrize("db", ["APPL_DB", "STATE_DB", "COUNTERS_DB", "ASIC_DB", "APPL_STATE_DB"])
def test_set_writes_config_db_only(client, cdb, db):
    details = refused(client, cdb, update=[(f"sonic-db:/{db}/localhost/NOS_DAEMON_TABLE/x", {"a": "1"})])
    assert "UNIMPLEMENTED" in details and "Set writes CONFIG_DB only" in details
