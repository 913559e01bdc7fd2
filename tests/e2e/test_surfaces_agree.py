"""One switch, four surfaces: a change made over REST, gNMI or the CLI is seen by the other two and
lands in ASIC_DB (issue 4's "visible everywhere, and the reverse")."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
import json
from collections.abc import Iterator

import httpx
import pytest
from pygnmi.client import gNMIclient

from tests.conftest import wait_until
from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = [pytest.mark.e2e,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]  # pygnmi's reader

N = "sonic-db:/CONFIG_DB/localhost"
MTU_OVERHEAD = 22  # SAI_PORT_ATTR_MTU counts the Ethernet header, FCS and one VLAN tag (portsorch)


@pytest.fixture(scope="module")
def switch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSwitch]:
    sw = start_switch(tmp_path_factory.mktemp("surfaces"), "--sku", "Force10-S6000", "--gnmi-port", "0")
    yield sw
    sw.close()
    nos("down", "--run-dir", str(sw.run_dir), check=False)


@pytest.fixture
def gnmi(switch: RunningSwitch) -> Iterator[gNMIclient]:
    host, port = switch.endpoints["gnmi"].rsplit(":", 1)
    with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=10) as client:
        yield client


def asic_mtu(sw: RunningSwitch, port: str) -> str | None:
    oid = sw.db(2).hget("COUNTERS_PORT_NAME_MAP", port)
    return sw.db(1).hget(f"ASIC_STATE:SAI_OBJECT_TYPE_PORT:{oid}", "SAI_PORT_ATTR_MTU") if oid else None


def rest_mtu(sw: RunningSwitch, port: str) -> str:
    return str(httpx.get(f"{sw.endpoints['rest']}/api/v1/config/PORT/{port}").json()["mtu"])


def gnmi_mtu(client: gNMIclient, port: str) -> str:
    return str(client.get(path=[f"{N}/PORT/{port}/mtu"], encoding="json_ietf")["notification"][0]["update"][0]["val"])


def cli_mtu(sw: RunningSwitch, port: str) -> str:
    [row] = json.loads(sw.nos("show", "interfaces", "status", port, "--json").stdout)
    return str(row["mtu"])


def everywhere(sw: RunningSwitch, client: gNMIclient, port: str, mtu: int) -> None:
    want = str(mtu)
    assert rest_mtu(sw, port) == want and gnmi_mtu(client, port) == want  # CONFIG_DB: at once
    wait_until(lambda: asic_mtu(sw, port) == str(mtu + MTU_OVERHEAD), timeout=15)
    wait_until(lambda: cli_mtu(sw, port) == want, timeout=15)  # the CLI shows APPL_DB's view


def test_a_rest_change_is_seen_over_gnmi_in_the_cli_and_in_the_asic(switch: RunningSwitch,
                                                                    gnmi: gNMIclient) -> None:
    reply = httpx.patch(f"{switch.endpoints['rest']}/api/v1/config/PORT/Ethernet16",
                        json=[{"op": "replace", "path": "/mtu", "value": "4100"}])
    assert reply.status_code == 200, reply.text
    everywhere(switch, gnmi, "Ethernet16", 4100)


def test_a_gnmi_change_is_seen_over_rest_in_the_cli_and_in_the_asic(switch: RunningSwitch,
                                                                    gnmi: gNMIclient) -> None:
    gnmi.set(update=[(f"{N}/PORT/Ethernet20/mtu", "4200")], encoding="json_ietf")
    everywhere(switch, gnmi, "Ethernet20", 4200)


def test_a_cli_change_is_seen_over_rest_and_gnmi_and_in_the_asic(switch: RunningSwitch, gnmi: gNMIclient) -> None:
    switch.nos("config", "interface", "mtu", "Ethernet24", "4300")
    everywhere(switch, gnmi, "Ethernet24", 4300)
