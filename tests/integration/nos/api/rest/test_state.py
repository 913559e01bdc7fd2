"""State and counters reads against rows written the way SONiC's daemons write them."""

from __future__ import annotations

import pytest

from nos.db import Databases, Table
from tests.integration.nos.api.rest.conftest import TestClient, errors_of

pytestmark = pytest.mark.integration

PORT0, PORT4 = "oid:0x1000000000002", "oid:0x1000000000003"
QUEUE3, PG3 = "oid:0x15000000000010", "oid:0x1a000000000020"
XOFF_ROOM = "SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_BYTES"


@pytest.fixture
def switch(dbs: Databases) -> Databases:
    appl, state, counters = dbs["APPL_DB"], dbs["STATE_DB"], dbs["COUNTERS_DB"]
    for port, lanes, oper in (("Ethernet0", "0,1,2,3", "up"), ("Ethernet4", "4,5,6,7", "down")):
        Table(appl, "PORT_TABLE").set(port, {"lanes": lanes, "speed": "100000", "mtu": "9100",
                                             "alias": f"etp{port[8:]}", "admin_status": "up",
                                             "oper_status": oper, "fec": "rs"})
        Table(state, "PORT_TABLE").set(port, {"state": "ok", "speed": "100000", "netdev_oper_status": oper})
    Table(appl, "ROUTE_TABLE").set("10.1.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"})
    Table(appl, "ROUTE_TABLE").set("Vrf1:10.2.0.0/24", {"nexthop": "10.0.0.1", "ifname": "Ethernet0"})
    Table(state, "VLAN_TABLE").set("Vlan100", {"state": "ok"})
    Table(counters, "COUNTERS_PORT_NAME_MAP").set("", {"Ethernet0": PORT0, "Ethernet4": PORT4})
    Table(counters, "COUNTERS").set(PORT0, {"SAI_PORT_STAT_IF_IN_OCTETS": "1000", "SAI_PORT_STAT_IF_OUT_OCTETS": "2000",
                                            "SAI_PORT_STAT_PFC_3_RX_PKTS": "7", "SAI_PORT_STAT_PFC_3_TX_PKTS": "5"})
    Table(counters, "COUNTERS_QUEUE_NAME_MAP").set("", {"Ethernet0:3": QUEUE3})
    Table(counters, "COUNTERS").set(QUEUE3, {"SAI_QUEUE_STAT_PACKETS": "11",
                                             "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": "2"})
    Table(counters, "COUNTERS_PG_NAME_MAP").set("", {"Ethernet0:3": PG3})
    Table(counters, "COUNTERS").set(PG3, {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": "1"})
    Table(counters, "USER_WATERMARKS").set(QUEUE3, {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": "4096"})
    Table(counters, "PERSISTENT_WATERMARKS").set(PG3, {XOFF_ROOM: "9"})
    return dbs


def test_interfaces_status_as_show_prints_it(client: TestClient, switch: Databases) -> None:
    rows = client.get("/api/v1/state/interfaces").json()
    assert [r["interface"] for r in rows] == ["Ethernet0", "Ethernet4"]
    assert rows[0] == {"interface": "Ethernet0", "lanes": "0,1,2,3", "speed": "100G", "mtu": "9100", "fec": "rs",
                       "alias": "etp0", "vlan": "routed", "oper": "up", "admin": "up", "type": "N/A", "asym_pfc": "N/A"}
    assert client.get("/api/v1/state/interfaces/Ethernet4").json()["oper"] == "down"
    assert [r["interface"] for r in client.get("/api/v1/state/interfaces?names=Ethernet4-8").json()] == ["Ethernet4"]
    missing = client.get("/api/v1/state/interfaces/Ethernet99")
    assert missing.status_code == 404 and "Ethernet99" in errors_of(missing)[0]["error-message"]


def test_routes_vlans_and_lags(client: TestClient, switch: Databases) -> None:
    routes = client.get("/api/v1/state/routes").json()
    assert routes == [{"prefix": "10.1.0.0/24", "vrf": "default",
                       "fields": {"nexthop": "10.0.0.1", "ifname": "Ethernet0", "protocol": "static"}},
                      {"prefix": "10.2.0.0/24", "vrf": "Vrf1",
                       "fields": {"nexthop": "10.0.0.1", "ifname": "Ethernet0"}}]
    assert [r["vrf"] for r in client.get("/api/v1/state/routes?vrf=default").json()] == ["default"]
    [vlan] = client.get("/api/v1/state/vlans").json()
    assert vlan["vlan_id"] == "100" and vlan["state"] == {"state": "ok"} and vlan["ports"] == []
    assert client.get("/api/v1/state/lags").json() == []
    assert client.get("/api/v1/state/lags/PortChannel1").status_code == 404


def test_lag_joins_config_appl_and_state(client: TestClient, switch: Databases) -> None:
    switch["CONFIG_DB"].client.hset("PORTCHANNEL|PortChannel1", mapping={"min_links": "1", "mtu": "9100"})
    Table(switch["APPL_DB"], "LAG_TABLE").set("PortChannel1", {"oper_status": "up", "admin_status": "up"})
    Table(switch["APPL_DB"], "LAG_MEMBER_TABLE").set("PortChannel1:Ethernet4", {"status": "enabled"})
    Table(switch["STATE_DB"], "LAG_TABLE").set("PortChannel1", {"state": "ok"})
    Table(switch["STATE_DB"], "LAG_MEMBER_TABLE").set("PortChannel1|Ethernet4", {"runner.aggregator.selected": "true"})
    [lag] = client.get("/api/v1/state/lags").json()
    assert lag["name"] == "PortChannel1" and lag["config"] == {"min_links": "1", "mtu": "9100"}
    assert lag["protocol"] == {"name": "LACP", "active": True, "oper_status": "up"}
    assert lag["members"] == [{"name": "Ethernet4", "selected": True, "status": "enabled", "in_sync": True}]
    assert lag["state"] == {"state": "ok"} and lag["appl"]["oper_status"] == "up"


def test_counters_by_name_with_sai_names_absent_is_left_out(client: TestClient, switch: Databases) -> None:
    every = client.get("/api/v1/counters/interfaces").json()
    assert list(every) == ["Ethernet0", "Ethernet4"]
    assert every["Ethernet0"]["SAI_PORT_STAT_IF_IN_OCTETS"] == 1000 and every["Ethernet4"] == {}
    assert client.get("/api/v1/counters/interfaces/Ethernet0").json() == every["Ethernet0"]
    assert client.get("/api/v1/counters/interfaces/Ethernet8").status_code == 404
    assert client.get("/api/v1/counters/pfc").json() == {
        "Ethernet0": {"SAI_PORT_STAT_PFC_3_RX_PKTS": 7, "SAI_PORT_STAT_PFC_3_TX_PKTS": 5}, "Ethernet4": {}}
    assert client.get("/api/v1/counters/pfc?ports=Ethernet4").json() == {"Ethernet4": {}}
    assert client.get("/api/v1/counters/queues").json() == {
        "Ethernet0:3": {"SAI_QUEUE_STAT_PACKETS": 11, "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": 2}}
    assert client.get("/api/v1/counters/queues?ports=Ethernet4").json() == {}
    assert client.get("/api/v1/counters/priority-groups").json() == {
        "Ethernet0:3": {"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": 1}}


def test_watermarks_by_kind(client: TestClient, switch: Databases) -> None:
    user = client.get("/api/v1/counters/watermarks/user").json()
    assert user["table"] == "USER_WATERMARKS"
    assert user["queues"] == {"Ethernet0:3": {"SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES": 4096}}
    assert user["priority_groups"] == {"Ethernet0:3": {}} and user["buffer_pools"] == {}
    persistent = client.get("/api/v1/counters/watermarks/persistent").json()
    assert persistent["priority_groups"] == {"Ethernet0:3": {XOFF_ROOM: 9}}
    bad = client.get("/api/v1/counters/watermarks/hourly")
    assert bad.status_code == 400 and errors_of(bad)[0]["error-path"] == "path/kind"


def test_health_and_status(client: TestClient, switch: Databases) -> None:
    assert client.get("/api/v1/health").json() == {"status": "ok"}
    status = client.get("/api/v1/status").json()
    assert status["ready"] is False and status["checks"][0]["name"] == "redis" and status["checks"][0]["ok"]


def test_all_ports_counters_follow_every_write(client: TestClient, switch: Databases) -> None:
    """The all-ports body is kept between reads, and a write acknowledged before a read is in that read."""
    counters = Table(switch["COUNTERS_DB"], "COUNTERS")
    for value in range(1001, 1021):
        counters.set(PORT0, {"SAI_PORT_STAT_IF_IN_OCTETS": str(value)})
        assert client.get("/api/v1/counters/interfaces").json()["Ethernet0"]["SAI_PORT_STAT_IF_IN_OCTETS"] == value
    Table(switch["COUNTERS_DB"], "COUNTERS_PORT_NAME_MAP").hdel("", "Ethernet4")
    assert list(client.get("/api/v1/counters/interfaces").json()) == ["Ethernet0"]


def test_all_ports_counters_are_gzipped_for_clients_that_accept_it(client: TestClient, switch: Databases) -> None:
    url = "/api/v1/counters/interfaces"
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
    for accept in ("gzip", "br, gzip;q=0.5", "*"):
        zipped = client.get(url, headers={"Accept-Encoding": accept})
        assert zipped.headers["content-encoding"] == "gzip" and zipped.json() == plain.json(), accept
    assert "content-encoding" not in client.get(url, headers={"Accept-Encoding": "gzip;q=0"}).headers


def test_kept_counters_are_answered_before_the_routing_as_the_route_answers(client: TestClient,
                                                                            switch: Databases) -> None:
    """A GET without a query string is answered by ``hot_reads``; with one it goes through FastAPI's route:
    the same status, headers and bytes either way, gzip or not."""
    for accept in ("gzip", "identity"):
        hot = client.get("/api/v1/counters/interfaces", headers={"Accept-Encoding": accept})
        routed = client.get("/api/v1/counters/interfaces?via=route", headers={"Accept-Encoding": accept})
        assert hot.status_code == routed.status_code == 200
        assert dict(hot.headers) == dict(routed.headers), accept
        assert hot.content == routed.content and hot.json()["Ethernet0"]["SAI_PORT_STAT_IF_IN_OCTETS"] == 1000
    assert client.head("/api/v1/counters/interfaces").status_code == 405  # only GET, as the route


def test_metrics_in_prometheus_text_format(client: TestClient, switch: Databases) -> None:
    reply = client.get("/metrics")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = reply.text.splitlines()
    assert 'sonic_interface_receive_bytes_total{device="Ethernet0"} 1000.0' in lines
    assert 'sonic_pfc_rx_pause_frames_total{device="Ethernet0",priority="3"} 7.0' in lines
    assert 'sonic_queue_ecn_marked_packets_total{device="Ethernet0",queue="3"} 2.0' in lines
    assert not any(line.startswith("sonic_interface_receive_bytes_total") and "Ethernet4" in line for line in lines)
