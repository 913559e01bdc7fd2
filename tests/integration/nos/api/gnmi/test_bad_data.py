"""gNMI with a key of CONFIG_DB that is not a row: Get of its table answers the rows, Get of the key
answers NOT_FOUND, and a Set elsewhere applies; the server stays up."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIException

from tests.integration.nos.api.gnmi.test_get import N, code, values

pytestmark = pytest.mark.integration


def test_get_and_set_around_a_string_row(client, raw):
    raw(4).delete("PORT|Ethernet4")
    raw(4).set("PORT|Ethernet4", "notahash")

    table = values(client.get(path=[f"{N}/PORT"], encoding="json_ietf"))[0]
    assert set(table) == {"Ethernet0", "Ethernet8", "Ethernet12"}
    with pytest.raises(gNMIException) as error:
        client.get(path=[f"{N}/PORT/Ethernet4"], encoding="json_ietf")
    assert code(error.value) is grpc.StatusCode.NOT_FOUND

    client.set(update=[(f"{N}/PORT/Ethernet8/mtu", "1500")], encoding="json_ietf")
    assert raw(4).hget("PORT|Ethernet8", "mtu") == "1500"
    client.set(replace=[(f"{N}/PORT/Ethernet4", {"lanes": "4,5,6,7", "speed": "400000"})], encoding="json_ietf")
    assert raw(4).hgetall("PORT|Ethernet4") == {"lanes": "4,5,6,7", "speed": "400000"}
