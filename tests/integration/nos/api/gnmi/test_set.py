"""Set with pygnmi: one SetRequest is one CONFIG_DB transaction, all or nothing."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIException

from nos.config.transaction import apply_patch
from nos.db import ConfigDBConnector
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until
from tests.integration.nos.api.gnmi.conftest import START

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"


@pytest.fixture
def cdb(seeded):
    return ConfigDBConnector(seeded[CONFIG_DB])


def test_a_multi_path_set_is_applied_and_answers_one_result_per_op_in_order(client, cdb):
    before = cdb.generation()
    reply = client.set(delete=[f"{N}/VLAN_MEMBER/Vlan100|Ethernet0"],
                       replace=[(f"{N}/PORT/Ethernet4", {**cdb.get_entry("PORT", "Ethernet4"), "mtu": "1500"})],
                       update=[(f"{N}/PORT/Ethernet0/admin_status", "down"),
                               (f"{N}/VLAN/Vlan200", {"vlanid": "200"}),
                               (f"{N}/VLAN_MEMBER/Vlan200/Ethernet8", {"tagging_mode": "tagged"})],
                       encoding="json_ietf")
    assert [r["op"] for r in reply["response"]] == ["DELETE", "REPLACE", "UPDATE", "UPDATE", "UPDATE"]
    assert reply["response"][0]["path"] == "CONFIG_DB/localhost/VLAN_MEMBER/Vlan100|Ethernet0"
    assert reply["timestamp"] > 0
    assert cdb.generation() == before + 1  # one transaction
    assert cdb.get_entry("PORT", "Ethernet0")["admin_status"] == "down"
    assert cdb.get_entry("PORT", "Ethernet4")["mtu"] == "1500"
    assert cdb.get_keys("VLAN_MEMBER") == ["Vlan200|Ethernet8"]


def test_set_then_get_sees_it(client):
    client.set(update=[(f"{N}/PORT/Ethernet12/mtu", 9000)], encoding="json_ietf")
    reply = client.get(path=[f"{N}/PORT/Ethernet12/mtu"], encoding="json_ietf")
    assert reply["notification"][0]["update"][0]["val"] == "9000"


@pytest.mark.parametrize(("kwargs", "text"), [
    ({"update": [(f"{N}/PORT/Ethernet0/mtu", "1500"), (f"{N}/PORT/Ethernet4/mtu", "abc")]},
     "update sonic-db:/CONFIG_DB/localhost/PORT/Ethernet4/mtu: INVALID_ARGUMENT: PORT|Ethernet4: field 'mtu'"),
    ({"update": [(f"{N}/PORT/Ethernet0/mtu", "1500"),
                 (f"{N}/VLAN_MEMBER/Vlan100|Ethernet99", {"tagging_mode": "tagged"})]},
     "VLAN_MEMBER|Vlan100|Ethernet99"),
    ({"delete": [f"{N}/PORT/Ethernet0"], "update": [(f"{N}/VLAN/Vlan300", {"vlanid": "300"})]},
     "delete sonic-db:/CONFIG_DB/localhost/PORT/Ethernet0: INVALID_ARGUMENT"),
    ({"update": [(f"{N}/PORT/Ethernet0/mtu", "1500"), ("sonic-db:/APPL_DB/localhost/PORT_TABLE/Ethernet0/mtu", "1")]},
     "UNIMPLEMENTED"),
    ({"replace": [(f"{N}/PORT/Ethernet0", {})]}, "would empty it"),
])
def test_one_bad_op_applies_nothing_and_aborts_naming_it(client, cdb, kwargs, text):
    before = cdb.get_config()
    with pytest.raises(gNMIException) as error:
        client.set(encoding="json_ietf", **kwargs)
    rpc = error.value.orig_exc
    assert rpc.code() == grpc.StatusCode.ABORTED and text in rpc.details() and "nothing applied" in rpc.details()
    assert cdb.get_config() == before


def test_deleting_what_does_not_exist_is_not_an_error(client, cdb):
    before = cdb.get_config()
    reply = client.set(delete=[f"{N}/PORT/Ethernet99", f"{N}/NO_SUCH_TABLE", f"{N}/PORT/Ethernet0/nofield"],
                       encoding="json_ietf")
    assert [r["op"] for r in reply["response"]] == ["DELETE"] * 3
    assert cdb.get_config() == before


def test_replace_of_a_table_removes_the_rows_not_given(client, cdb):
    client.set(delete=[f"{N}/VLAN_MEMBER"], replace=[(f"{N}/VLAN", {"Vlan300": {"vlanid": 300}})], encoding="json")
    assert cdb.get_table("VLAN") == {"Vlan300": {"vlanid": "300"}}


def test_an_empty_set_request_is_not_an_error(client):
    assert client.set(encoding="json_ietf")["timestamp"] > 0


def test_a_root_replace_is_a_whole_configuration_and_a_root_get_reads_it(client, cdb):
    whole = client.get(path=[N], encoding="json_ietf")["notification"][0]["update"][0]["val"]
    assert whole["VLAN"] == {"Vlan100": {"vlanid": "100"}} and set(whole["PORT"]) == {f"Ethernet{i}" for i in
                                                                                       (0, 4, 8, 12)}
    del whole["VLAN"], whole["VLAN_MEMBER"]
    client.set(replace=[(N, whole)], encoding="json_ietf")
    assert cdb.get_keys("VLAN") == [] and cdb.get_keys("VLAN_MEMBER") == [] and len(cdb.get_keys("PORT")) == 4


def test_a_refused_set_leaves_the_servers_view_intact_for_the_next_one(client, cdb):
    """Sets build on the server's cached snapshot, copying only the rows they touch: a refused Set must
    not leave its half-built rows behind in that snapshot."""
    with pytest.raises(gNMIException):
        client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500"), (f"{N}/PORT/Ethernet4/mtu", "abc")],
                   encoding="json_ietf")
    client.set(update=[(f"{N}/PORT/Ethernet8/description", "uplink")], encoding="json_ietf")
    assert cdb.get_entry("PORT", "Ethernet0")["mtu"] != "1500"  # the second Set did not carry the first's row
    assert cdb.get_entry("PORT", "Ethernet8")["description"] == "uplink"


def test_sets_in_a_row_plan_on_the_cache_and_never_lose_another_writers_change(client, cdb, server, monkeypatch):
    """After its own commit, the server plans the next Set on its cache with no snapshot round trip;
    a commit by another writer (REST, the CLI) in between is caught by the generation check and kept."""
    client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
    service_cdb = server.service.cdb
    wait_until(service_cdb.recent_snapshot)  # the commit's own events are in
    snapshots: list[int] = []
    snapshot = service_cdb.snapshot
    monkeypatch.setattr(service_cdb, "snapshot", lambda: snapshots.append(1) or snapshot())
    client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1600")], encoding="json_ietf")
    assert snapshots == [] and cdb.get_entry("PORT", "Ethernet0")["mtu"] == "1600"
    apply_patch(cdb, [{"op": "replace", "path": "/PORT/Ethernet0/admin_status", "value": "down"}])
    before = cdb.generation()
    client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1700")], encoding="json_ietf")
    assert cdb.generation() == before + 1
    assert cdb.get_entry("PORT", "Ethernet0") == {**START["PORT"]["Ethernet0"], "mtu": "1700", "admin_status": "down"}


def test_once_a_set_is_answered_its_events_are_read_before_the_next(client, server):
    """The Set's own keyspace events are read by the server's CONFIG_DB cache after the answer is sent
    (a gRPC callback), so the next Set plans on the cache with nothing left to read."""
    cache = server.service.cdb.cache
    client.set(update=[(f"{N}/PORT/Ethernet0/mtu", "1500")], encoding="json_ietf")
    assert cache is not None
    wait_until(lambda: cache._own is None and cache._known is not None)  # marker read, no Set in between


def test_an_mclag_set_is_validated_like_any_table(client, cdb):
    domain = {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.2", "peer_link": "Ethernet4"}
    client.set(encoding="json_ietf", update=[(f"{N}/MCLAG_DOMAIN/1", domain)])
    assert cdb.get_entry("MCLAG_DOMAIN", "1") == domain
    before = cdb.get_config()
    with pytest.raises(gNMIException) as error:
        client.set(encoding="json_ietf", update=[(f"{N}/MCLAG_DOMAIN/1/keepalive_interval", "20")])
    details = error.value.orig_exc.details()
    assert "MCLAG_DOMAIN|1: field 'session_timeout'" in details and "nothing applied" in details
    assert cdb.get_config() == before
