"""Subscribe with pygnmi: ONCE, POLL, STREAM ON_CHANGE (keys in paths, deletes) and SAMPLE (intervals)."""

from __future__ import annotations

import grpc
import pytest
from pygnmi.client import gNMIclient, gNMIException

from nos.db import ConfigDBConnector
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until

# pygnmi's stream reader thread re-raises CANCELLED when a test closes its channel (pygnmi's behaviour).
pytestmark = [pytest.mark.integration,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]

N = "sonic-db:/CONFIG_DB/localhost"
S = 1_000_000_000


def stream(gc: gNMIclient, *subscriptions: dict, target: str | None = None, **extra: object):
    request = {"subscription": list(subscriptions), "mode": "stream", "encoding": "json_ietf", **extra}
    return gc.subscribe2(subscribe=request, target=target)


def updates(message: dict) -> dict:
    return {u["path"]: u["val"] for u in message["update"]["update"]}


def test_on_change_sends_the_changed_row_with_its_key_then_deletes(client, seeded):
    cdb = ConfigDBConnector(seeded[CONFIG_DB])
    sub = stream(client, {"path": f"{N}/PORT", "mode": "on_change"})
    first = sub.get_update(timeout=5)
    assert first["sync_response"] and set(updates(first)) == {f"CONFIG_DB/localhost/PORT/Ethernet{i}" for i in
                                                              (0, 4, 8, 12)}
    cdb.mod_entry("PORT", "Ethernet4", {"admin_status": "up"})       # no change: nothing is sent
    cdb.mod_entry("PORT", "Ethernet4", {"admin_status": "down"})
    change = sub.get_update(timeout=5)
    assert updates(change) == {"CONFIG_DB/localhost/PORT/Ethernet4": {**cdb.get_entry("PORT", "Ethernet4")}}
    assert updates(change)["CONFIG_DB/localhost/PORT/Ethernet4"]["admin_status"] == "down"
    seeded[CONFIG_DB].client.delete("PORT|Ethernet12")
    gone = sub.get_update(timeout=5)
    assert gone["update"]["delete"] == [{"path": "CONFIG_DB/localhost/PORT/Ethernet12"}]


def test_on_change_of_one_field_with_a_target_path_and_a_key_that_does_not_exist_yet(client, seeded):
    sub = stream(client, {"path": "PORT/Ethernet0/admin_status", "mode": "on_change"},
                 {"path": "VLAN/Vlan300", "mode": "on_change"}, target="CONFIG_DB")
    assert updates(sub.get_update(timeout=5)) == {"PORT/Ethernet0/admin_status": "up"}
    config = seeded[CONFIG_DB].client
    config.hset("PORT|Ethernet0", "admin_status", "down")
    assert updates(sub.get_update(timeout=5)) == {"PORT/Ethernet0/admin_status": "down"}
    config.hset("VLAN|Vlan300", "vlanid", "300")
    assert updates(sub.get_update(timeout=5)) == {"VLAN/Vlan300": {"vlanid": "300"}}


def test_sample_of_counters_delivers_every_interval_with_current_values(client, raw):
    sub = stream(client, {"path": "COUNTERS/Ethernet*", "mode": "sample", "sample_interval": S},
                 target="COUNTERS_DB")
    first = sub.get_update(timeout=5)
    assert updates(first)["COUNTERS/Ethernet*"]["etp1"]["SAI_PORT_STAT_IF_IN_OCTETS"] == "0"
    raw(2).hset("COUNTERS:oid:0x1000000000002", "SAI_PORT_STAT_IF_IN_OCTETS", "12345")
    stamps = [first["update"]["timestamp"]]
    for _ in range(2):
        message = sub.get_update(timeout=3)
        stamps.append(message["update"]["timestamp"])
    assert updates(message)["COUNTERS/Ethernet*"]["etp1"]["SAI_PORT_STAT_IF_IN_OCTETS"] == "12345"
    gaps = [(b - a) / S for a, b in zip(stamps, stamps[1:], strict=False)]
    assert all(0.8 < gap < 1.4 for gap in gaps), gaps


def test_target_defined_on_counters_samples_and_suppress_redundant_sends_only_changes(client, raw):
    sub = stream(client, {"path": "COUNTERS/Ethernet4", "mode": "target_defined", "suppress_redundant": True},
                 target="COUNTERS_DB")
    assert updates(sub.get_update(timeout=5))["COUNTERS/Ethernet4"]["SAI_PORT_STAT_PFC_3_RX_PKTS"] == "1"
    with pytest.raises(TimeoutError):  # an unchanged tick sends nothing
        sub.get_update(timeout=1.3)
    raw(2).hset("COUNTERS:oid:0x1000000000003", "SAI_PORT_STAT_PFC_3_RX_PKTS", "99")
    assert updates(sub.get_update(timeout=3)) == {"COUNTERS/Ethernet4": {"SAI_PORT_STAT_PFC_3_RX_PKTS": "99"}}


def test_updates_only_skips_the_initial_dump(client, seeded):
    sub = stream(client, {"path": f"{N}/VLAN", "mode": "on_change"}, updates_only=True)
    assert sub.get_update(timeout=5) == {"update": {}, "sync_response": True}
    seeded[CONFIG_DB].client.hset("VLAN|Vlan100", "mtu", "1500")
    assert updates(sub.get_update(timeout=5)) == {"CONFIG_DB/localhost/VLAN/Vlan100": {"vlanid": "100", "mtu": "1500"}}


def test_once_sends_everything_then_sync_then_ends(client):
    messages = list(client.subscribe2(subscribe={"mode": "once", "encoding": "json_ietf", "subscription": [
        {"path": "COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_3_RX_PKTS"}, {"path": "COUNTERS/Ethernet0/Queues"}]},
        target="COUNTERS_DB"))
    assert messages[-1] == {"sync_response": True} and len(messages) == 3
    assert updates(messages[0])["COUNTERS/Ethernet*/SAI_PORT_STAT_PFC_3_RX_PKTS"]["etp3"] == {
        "SAI_PORT_STAT_PFC_3_RX_PKTS": "2"}
    assert set(updates(messages[1])["COUNTERS/Ethernet0/Queues"]) == {"Ethernet0:0", "Ethernet0:1"}


def test_poll_resends_everything_for_each_poll(client, seeded):
    sub = client.subscribe2(subscribe={"mode": "poll", "encoding": "json_ietf",
                                       "subscription": [{"path": f"{N}/PORT/Ethernet8/mtu"}]})
    assert updates(sub.get_update(timeout=5)) == {"CONFIG_DB/localhost/PORT/Ethernet8/mtu": "9100"}
    seeded[CONFIG_DB].client.hset("PORT|Ethernet8", "mtu", "1500")
    # pygnmi sends a Poll on every get_update, the first one included, so the answer to a Poll sent
    # before the write may still be queued: poll until the write shows, each answer a whole resend
    answers: list[dict] = []
    wait_until(lambda: answers.append(sub.get_update(timeout=5)) or updates(answers[-1]) == {
        "CONFIG_DB/localhost/PORT/Ethernet8/mtu": "1500"}, timeout=10, interval=0)
    assert all(a["sync_response"] and len(updates(a)) == 1 for a in answers)


@pytest.mark.parametrize(("subscription", "text"), [
    ({"path": "COUNTERS/Ethernet*", "mode": "sample", "sample_interval": S // 2}, "below this switch's minimum"),
    ({"path": "COUNTERS/Ethernet*", "mode": "on_change", "heartbeat_interval": 1000}, "heartbeat_interval"),
])
def test_intervals_below_one_second_are_invalid_arguments(client, subscription, text):
    sub = stream(client, subscription, target="COUNTERS_DB")
    wait_until(lambda: sub.error is not None)  # pygnmi keeps the RPC error of its reader thread
    assert sub.error.code() == grpc.StatusCode.INVALID_ARGUMENT and text in sub.error.details()


def test_streams_share_one_keyspace_subscription_and_release_it_when_clients_go(server, seeded, raw):
    clients, subs = [], []
    for _ in range(8):
        gc = gNMIclient(target=("127.0.0.1", server.port), insecure=True).connect()
        clients.append(gc)
        subs.append(stream(gc, {"path": f"{N}/PORT/Ethernet0", "mode": "on_change"}))
    for sub in subs:
        assert sub.get_update(timeout=5)["sync_response"]
    assert raw(4).execute_command("PUBSUB", "NUMPAT") == 1
    seeded[CONFIG_DB].client.hset("PORT|Ethernet0", "mtu", "4242")
    for sub in subs:
        assert updates(sub.get_update(timeout=5))["CONFIG_DB/localhost/PORT/Ethernet0"]["mtu"] == "4242"
    assert server.feed.watcher_count() == 8
    for gc in clients:
        gc.close()
    wait_until(lambda: server.feed.watcher_count() == 0)


def test_a_bad_path_ends_the_subscription_with_its_reason(client):
    sub = stream(client, {"path": "sonic-db:/NOPE_DB/localhost/X", "mode": "on_change"})
    wait_until(lambda: sub.error is not None)
    assert sub.error.code() == grpc.StatusCode.NOT_FOUND and "NOPE_DB" in sub.error.details()
    with pytest.raises(gNMIException):
        client.get(path=["sonic-db:/NOPE_DB/localhost/X"])


def test_on_change_heartbeat_resends_the_current_value(client):
    sub = stream(client, {"path": f"{N}/VLAN/Vlan100", "mode": "on_change", "heartbeat_interval": S})
    first = sub.get_update(timeout=5)
    again = sub.get_update(timeout=3)  # nothing changed: the heartbeat sends it anyway
    assert updates(again) == updates(first) == {"CONFIG_DB/localhost/VLAN/Vlan100": {"vlanid": "100"}}
    assert 0.8 < (again["update"]["timestamp"] - first["update"]["timestamp"]) / S < 1.5
