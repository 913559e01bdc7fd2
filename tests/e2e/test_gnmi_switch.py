"""gNMI against a whole switch: a Set reaches CONFIG_DB and the ASIC; a CONFIG_DB change reaches a subscriber."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
import pytest
from pygnmi.client import gNMIclient

from tests.conftest import wait_until
from tests.e2e.conftest import nos, start_switch

pytestmark = [pytest.mark.e2e,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]  # pygnmi's reader

N = "sonic-db:/CONFIG_DB/localhost"


@pytest.fixture(scope="module")
def switch(tmp_path_factory):
    sw = start_switch(tmp_path_factory.mktemp("gnmi"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


@pytest.fixture
def client(switch):
    host, port = switch.endpoints["gnmi"].rsplit(":", 1)
    with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=10) as gc:
        yield gc


def test_a_gnmi_set_reaches_config_db_and_the_asic(switch, client):
    oid = switch.db(2).hget("COUNTERS_PORT_NAME_MAP", "Ethernet8")
    reply = client.set(update=[(f"{N}/PORT/Ethernet8/mtu", "4000"), (f"{N}/PORT/Ethernet8/admin_status", "up")],
                       encoding="json_ietf")
    assert [r["op"] for r in reply["response"]] == ["UPDATE", "UPDATE"]
    assert switch.db(4).hget("PORT|Ethernet8", "mtu") == "4000"
    asic = f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}"
    wait_until(lambda: switch.db(1).hget(asic, "SAI_PORT_ATTR_MTU") == "4022", timeout=10)  # + Ethernet overhead
    wait_until(lambda: switch.db(1).hget(asic, "SAI_PORT_ATTR_ADMIN_STATE") == "true", timeout=10)
    got = client.get(path=[f"{N}/PORT/Ethernet8/mtu"], encoding="json_ietf")
    assert got["notification"][0]["update"][0]["val"] == "4000"


def test_a_config_db_change_reaches_an_on_change_subscriber_with_its_key(switch, client):
    sub = client.subscribe2(subscribe={"mode": "stream", "encoding": "json_ietf", "subscription": [
        {"path": f"{N}/PORT", "mode": "on_change"}]})
    first = sub.get_update(timeout=10)
    assert first["sync_response"] and len(first["update"]["update"]) == 32
    switch.db(4).hset("PORT|Ethernet12", "admin_status", "up")
    seen: dict = {}

    def changed() -> bool:
        for u in sub.get_update(timeout=10)["update"]["update"]:
            seen[u["path"]] = u["val"]
        return seen.get("CONFIG_DB/localhost/PORT/Ethernet12", {}).get("admin_status") == "up"

    wait_until(changed, timeout=15)
    # the port comes up, and STATE_DB's view of it is readable over gNMI with a target path
    state = lambda: client.get(path=["PORT_TABLE/Ethernet12"], target="STATE_DB",  # noqa: E731
                               encoding="json_ietf")["notification"][0]["update"][0]["val"]
    wait_until(lambda: state().get("netdev_oper_status") == "up", timeout=15)
