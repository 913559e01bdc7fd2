"""A table ``port`` written on every surface of a whole switch is kept apart from ``PORT``: the ports
and the ASIC are untouched, ``config save`` writes it back, and the switch boots again from that file
with it (once the first write replaced ``PORT|Ethernet0`` and the next ``nos up`` refused the file)."""

from __future__ import annotations

import nos.api.gnmi  # noqa: F401 - first: turns gRPC's fork handlers off before grpc loads (this runner forks)

# isort: split
import json

import httpx
import pytest
from pygnmi.client import gNMIclient

from nos.config.files import read_config_file
from tests.e2e.conftest import RunningSwitch, nos, start_switch

pytestmark = [pytest.mark.e2e,
              pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")]  # pygnmi's reader

N = "sonic-db:/CONFIG_DB/localhost"


def _ports(sw: RunningSwitch) -> dict[str, dict[str, str]]:
    return {key: sw.db(4).hgetall(key) for key in sw.db(4).keys("PORT|*")}


def _asic_ports(sw: RunningSwitch) -> dict[str, dict[str, str]]:
    return {key: sw.db(1).hgetall(key) for key in sw.db(1).keys("ASIC_STATE:SAI_OBJECT_TYPE_PORT:*")}


def test_a_lower_case_table_from_every_surface_is_kept_saved_and_boots_again(tmp_path):
    sw = start_switch(tmp_path / "sw", "--sku", "Force10-S6000", "--gnmi-port", "0")
    try:
        ports, asic = _ports(sw), _asic_ports(sw)
        (tmp_path / "port.json").write_text(json.dumps({"port": {"Ethernet0": {"mtu": "1500"}}}))
        loaded = sw.nos("config", "load", str(tmp_path / "port.json")).stdout
        assert "Kept but not acted on by this switch: port" in loaded
        assert _ports(sw) == ports  # once: PORT|Ethernet0 replaced by {mtu: 1500}
        (tmp_path / "patch.json").write_text(json.dumps([{"op": "add", "path": "/port/Ethernet4",
                                                          "value": {"mtu": "1500"}}]))
        sw.nos("config", "apply-patch", str(tmp_path / "patch.json"))
        reply = httpx.put(f"{sw.endpoints['rest']}/api/v1/config/port/Ethernet8", json={"mtu": "1500"})
        assert reply.status_code == 200 and reply.json()["not_acted_on"] == ["port"], reply.text
        host, port = sw.endpoints["gnmi"].rsplit(":", 1)
        with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=10) as client:
            client.set(replace=[(f"{N}/port/Ethernet12", {"mtu": "1500"})], encoding="json_ietf")
        assert _ports(sw) == ports and _asic_ports(sw) == asic
        sw.nos("config", "save")
        saved = read_config_file(sw.run_dir / "config_db.json")
        assert set(saved["port"]) == {"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}
        assert saved["PORT"]["Ethernet0"]["lanes"]
        sw.close()
        sw.nos("down")
        again = start_switch(sw.run_dir, "--gnmi-port", "0")  # boots from the saved config_db.json
        boot = json.loads((sw.run_dir / "boot.json").read_text())
        assert (boot["state"], boot["config"]) == ("ready", str(sw.run_dir / "config_db.json"))
        assert again.db(4).hgetall("port|Ethernet12") == {"mtu": "1500"}
        assert _ports(again) == ports
        again.close()
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)
