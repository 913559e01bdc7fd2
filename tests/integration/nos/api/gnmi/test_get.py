"""Capabilities and Get with pygnmi against the real server: native and target paths, virtual COUNTERS."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIException

pytestmark = pytest.mark.integration

N = "sonic-db:/CONFIG_DB/localhost"


def values(reply: dict) -> list:
    return [u["val"] for n in reply["notification"] for u in n["update"]]


def code(error: gNMIException) -> grpc.StatusCode:
    return error.orig_exc.code()


def test_capabilities_advertise_sonic_db_json_and_json_ietf(client):
    caps = client.capabilities()
    assert {"name": "sonic-db", "organization": "SONiC", "version": "0.1.0"} in caps["supported_models"]
    assert caps["supported_encodings"] == ["json", "json_ietf"] and caps["gnmi_version"] == "0.8.0"


def test_get_native_paths_table_row_field(client):
    row = values(client.get(path=[f"{N}/PORT/Ethernet0"], encoding="json_ietf"))[0]
    assert row == {"lanes": "0,1,2,3", "speed": "400000", "mtu": "9100", "admin_status": "up", "alias": "etp1"}
    assert values(client.get(path=[f"{N}/PORT/Ethernet4/mtu"], encoding="json_ietf")) == ["9100"]
    table = values(client.get(prefix="sonic-db:", path=["/CONFIG_DB/localhost/VLAN_MEMBER"], encoding="json"))[0]
    assert table == {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}}
    keyed = client.get(path=[f"{N}/VLAN[key=Vlan100]/vlanid"], encoding="json_ietf")
    assert values(keyed) == ["100"]
    assert values(client.get(path=[f"{N}/VLAN_MEMBER/Vlan100/Ethernet0"], encoding="json_ietf")) == [
        {"tagging_mode": "untagged"}]


def test_get_answers_one_notification_per_path_with_timestamp_and_the_asked_encoding(client):
    reply = client.get(path=[f"{N}/PORT/Ethernet0/mtu", f"{N}/PORT/Ethernet4/admin_status"], encoding="json")
    assert [n["update"][0]["path"] for n in reply["notification"]] == [
        "CONFIG_DB/localhost/PORT/Ethernet0/mtu", "CONFIG_DB/localhost/PORT/Ethernet4/admin_status"]
    assert all(n["timestamp"] > 0 for n in reply["notification"])


def test_get_target_paths_with_key_or_field_probing(client):
    assert values(client.get(path=["PORT/Ethernet8"], target="CONFIG_DB", encoding="json_ietf"))[0]["alias"] == "etp3"
    assert values(client.get(path=["PORT/Ethernet8/speed"], target="CONFIG_DB", encoding="json_ietf")) == ["400000"]
    assert values(client.get(path=["VLAN_MEMBER/Vlan100/Ethernet0"], target="CONFIG_DB",
                             encoding="json_ietf")) == [{"tagging_mode": "untagged"}]
    name_map = values(client.get(path=["COUNTERS_PORT_NAME_MAP"], target="COUNTERS_DB", encoding="json_ietf"))[0]
    assert name_map["Ethernet0"] == "oid:0x1000000000002"
    assert values(client.get(path=["COUNTERS_PORT_NAME_MAP/Ethernet4"], target="COUNTERS_DB",
                             encoding="json_ietf")) == ["oid:0x1000000000003"]


def test_get_virtual_counters_paths(client):
    get = lambda p: values(client.get(path=[p], target="COUNTERS_DB", encoding="json_ietf"))[0]  # noqa: E731
    ports = get("COUNTERS/Ethernet*")
    assert list(ports) == ["etp1", "etp2", "etp3", "etp4"]  # keyed by alias, as sonic-gnmi does
    assert ports["etp2"] == {"SAI_PORT_STAT_IF_IN_OCTETS": "1", "SAI_PORT_STAT_PFC_3_RX_PKTS": "1"}
    assert get("COUNTERS/Ethernet4") == ports["etp2"]
    assert get("COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_3_RX_PKTS")["etp4"] == {"SAI_PORT_STAT_PFC_3_RX_PKTS": "3"}
    assert get("COUNTERS/Ethernet12/SAI_PORT_STAT_IF_IN_OCTETS") == "3"
    assert get("COUNTERS/Ethernet4/Queues") == {"Ethernet4:0": {"SAI_QUEUE_STAT_PACKETS": "1"},
                                                 "Ethernet4:1": {"SAI_QUEUE_STAT_PACKETS": "11"}}
    assert len(get("COUNTERS/Ethernet*/Queues")) == 8
    pgs = get("PERIODIC_WATERMARKS/Ethernet*/PriorityGroups")
    assert pgs["etp1:3"] == {"SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_BYTES": "64"}
    native = values(client.get(path=["sonic-db:/COUNTERS_DB/localhost/COUNTERS/Ethernet0"], encoding="json_ietf"))
    assert native[0]["SAI_PORT_STAT_IF_IN_OCTETS"] == "0"


def test_pfcwd_queues_follow_the_pfc_priorities_of_guarded_ports(client, dbs, raw):
    config = raw(4)
    config.hset("PFC_WD|Ethernet4", mapping={"action": "drop", "detection_time": "200", "restoration_time": "200"})
    config.hset("PORT_QOS_MAP|Ethernet4", "pfc_enable", "1")
    reply = client.get(path=["COUNTERS/Ethernet*/Pfcwd"], target="COUNTERS_DB", encoding="json_ietf")
    assert values(reply) == [{"etp2:1": {"SAI_QUEUE_STAT_PACKETS": "11"}}]


@pytest.mark.parametrize(("path", "target", "status", "text"), [
    (f"{N}/PORT/Ethernet99", None, grpc.StatusCode.NOT_FOUND, "no such row"),
    (f"{N}/PORT/Ethernet0/nofield", None, grpc.StatusCode.NOT_FOUND, "no such row or field"),
    (f"{N}/NOTABLE", None, grpc.StatusCode.NOT_FOUND, "no rows"),
    ("COUNTERS/Ethernet99", "COUNTERS_DB", grpc.StatusCode.NOT_FOUND, "COUNTERS/Ethernet99"),
    ("PORT", "NOT_A_DB", grpc.StatusCode.NOT_FOUND, "unknown target"),
    ("openconfig-interfaces:/interfaces", None, grpc.StatusCode.UNIMPLEMENTED, "origin"),
])
def test_get_errors_name_the_path_and_reason(client, path, target, status, text):
    with pytest.raises(gNMIException) as error:
        client.get(path=[path], target=target, encoding="json_ietf")
    assert code(error.value) == status and text in error.value.orig_exc.details()


def test_unsupported_encoding_is_unimplemented(server):
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        request = gnmi_pb2.GetRequest(path=[gnmi_pb2.Path(origin="sonic-db", elem=[
            gnmi_pb2.PathElem(name=n) for n in ("CONFIG_DB", "localhost", "PORT")])], encoding=gnmi_pb2.Encoding.PROTO)
        with pytest.raises(grpc.RpcError) as error:
            gnmi_pb2_grpc.gNMIStub(channel).Get(request, timeout=5)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED and "JSON" in error.value.details()
