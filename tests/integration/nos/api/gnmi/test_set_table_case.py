"""gNMI Set with pygnmi: table names are case-exact; ``/port/...`` is a table ``port`` and no update,
replace or delete of it touches ``PORT``."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIException

from nos.db import ConfigDBConnector
from nos.schema.dbconfig import CONFIG_DB
from tests.integration.nos.api.gnmi.conftest import START

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"


@pytest.fixture
def cdb(seeded):
    return ConfigDBConnector(seeded[CONFIG_DB])


def test_sets_of_a_lower_case_table_leave_port_alone(client, cdb):
    client.set(replace=[(f"{N}/port/Ethernet0", {"mtu": "1500"})], encoding="json_ietf")
    client.set(update=[(f"{N}/port/Ethernet4/mtu", "1500"), (f"{N}/Port/Ethernet8", {"mtu": "1500"})],
               encoding="json_ietf")
    assert cdb.get_table("PORT") == START["PORT"]  # once: PORT|Ethernet0 replaced by {mtu: 1500}
    assert cdb.get_table("port") == {"Ethernet0": {"mtu": "1500"}, "Ethernet4": {"mtu": "1500"}}
    client.set(delete=[f"{N}/port/Ethernet0", f"{N}/Port"], encoding="json_ietf")
    assert cdb.get_table("PORT") == START["PORT"] and set(cdb.get_config()) == {*START, "port"}


def test_a_table_name_holding_the_separator_is_refused(client, cdb):
    before = cdb.get_config()
    with pytest.raises(gNMIException) as error:
        client.set(update=[(f"{N}/PORT|Ethernet0/x", {"mtu": "1500"})], encoding="json_ietf")
    rpc = error.value.orig_exc
    assert rpc.code() == grpc.StatusCode.ABORTED and "cannot contain '|'" in rpc.details()
    assert cdb.get_config() == before
