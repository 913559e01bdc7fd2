"""gNMI Set with pygnmi past the input limits: a value nested deeper than 64 levels is INVALID_ARGUMENT
naming the limit (once a RecursionError and INTERNAL), a SetRequest over gRPC's 4 MiB message limit is
RESOURCE_EXHAUSTED from grpc itself; either way nothing is applied and the server answers the next Set."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIException

from nos.db import ConfigDBConnector
from nos.schema.dbconfig import CONFIG_DB

pytestmark = [pytest.mark.integration,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]

N = "sonic-db:/CONFIG_DB/localhost"


@pytest.fixture
def cdb(seeded):
    return ConfigDBConnector(seeded[CONFIG_DB])


def _refused(client, **kwargs) -> grpc.RpcError:
    with pytest.raises(gNMIException) as error:
        client.set(encoding="json_ietf", **kwargs)
    return error.value.orig_exc


@pytest.mark.parametrize("levels", [100, 5000])
def test_a_value_nested_past_the_limit_is_invalid_argument(client, cdb, levels):
    before = cdb.get_config()
    deep = '{"mtu": ' + "[" * levels + "]" * levels + "}"
    rpc = _refused(client, update=[(f"{N}/PORT/Ethernet0/mtu", "1500"), (f"{N}/PORT/Ethernet4", deep)])
    assert rpc.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "PORT/Ethernet4: the JSON nests deeper than 64 levels" in rpc.details()
    assert "nothing applied" in rpc.details()
    assert cdb.get_config() == before
    client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] == "1500"


def test_a_set_over_grpcs_message_limit_is_resource_exhausted(client, cdb):
    before = cdb.get_config()
    huge = '{"description": "' + "x" * (5 << 20) + '"}'
    rpc = _refused(client, update=[(f"{N}/PORT/Ethernet0", huge)])
    assert rpc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "4194304" in rpc.details()
    assert cdb.get_config() == before
