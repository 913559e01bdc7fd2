"""``nos lab compose``: a lab as a docker-compose file (nos.lab.compose), checked as the YAML it prints."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from nos.cli.main import cli
from nos.lab.compose import HEALTHCHECK, ComposeError, Published, compose_file, render, switch_services
from nos.lab.topology import load_topology

ROOT = Path(__file__).resolve().parents[4]
LABS = ROOT / "configs" / "labs"
ROLES = ("database", "syncd", "swss", "mgmt")


def generated(tmp_path: Path, *extra: str) -> tuple[dict, str]:
    out = CliRunner().invoke(cli, ["lab", "compose", str(LABS / "two-leaves.yaml"), "--dir", str(tmp_path / "lab"),
                                   *extra])
    assert out.exit_code == 0, out.output
    return yaml.safe_load(out.output), out.output


def test_every_switch_is_four_containers_and_the_links_one_more(tmp_path: Path) -> None:
    doc, _ = generated(tmp_path)
    assert set(doc) == {"services"}  # the compose specification's layout: no version key
    services = doc["services"]
    assert set(services) == {f"{node}-{role}" for node in ("leaf1", "leaf2") for role in ROLES} | {"links"}
    for name, service in services.items():
        assert service["healthcheck"] == HEALTHCHECK and service["restart"] == "unless-stopped", name
        assert service["init"] is True and service["image"] == "nos-sim:latest", name
    lab = tmp_path / "lab"
    for node in ("leaf1", "leaf2"):
        for role in ROLES:
            service = services[f"{node}-{role}"]
            assert service["command"][:4] == ["python", "-m", "nos.runtime.container", role]
            assert f"{lab}/nodes/{node}:/var/run/nos" in service["volumes"]
        database = services[f"{node}-database"]
        assert database["command"][-2:] == ["--config", "/etc/nos/startup.json"]
        assert f"{lab}/configs/{node}.json:/etc/nos/startup.json:ro" in database["volumes"]
        assert services[f"{node}-swss"]["depends_on"] == {f"{node}-database": {"condition": "service_healthy"},
                                                          f"{node}-syncd": {"condition": "service_healthy"}}
        assert services[f"{node}-syncd"]["network_mode"] == "none"


def test_ports_are_published_on_loopback_one_apart(tmp_path: Path) -> None:
    doc, _ = generated(tmp_path, "--rest-port", "18000", "--gnmi-port", "18100", "--redis-port", "16000")
    services = doc["services"]
    assert services["leaf1-mgmt"]["ports"] == ["127.0.0.1:18000:8000", "127.0.0.1:18100:8080"]
    assert services["leaf2-mgmt"]["ports"] == ["127.0.0.1:18001:8000", "127.0.0.1:18101:8080"]
    assert services["leaf2-database"]["ports"] == ["127.0.0.1:16001:6379"]
    assert services["leaf1-mgmt"]["environment"] == {"NOS_PUBLISHED_ON": "127.0.0.1"}
    wide, _ = generated(tmp_path, "--publish", "0.0.0.0")
    assert wide["services"]["leaf1-mgmt"]["environment"] == {"NOS_PUBLISHED_ON": "0.0.0.0"}


def test_the_links_container_joins_every_switch_as_the_lab_does(tmp_path: Path) -> None:
    doc, text = generated(tmp_path)
    links = doc["services"]["links"]
    command = links["command"]
    assert command[:4] == ["python", "-m", "nos.lab.linkkeeper", "/topology/two-leaves.yaml"]
    assert [command[i + 1] for i, arg in enumerate(command) if arg == "--node"] == [
        "leaf1=unix:///lab/nodes/leaf1/redis.sock", "leaf2=unix:///lab/nodes/leaf2/redis.sock"]
    assert command[command.index("--cuts") + 1] == "/lab/cuts.json"
    assert f"{LABS}:/topology:ro" in links["volumes"] and links["network_mode"] == "none"
    assert links["depends_on"] == {"leaf1-database": {"condition": "service_healthy"},
                                   "leaf2-database": {"condition": "service_healthy"}}
    assert "nos attach --run-dir" in text.splitlines()[4]  # the header says how to reach each switch


def test_the_startup_configs_are_the_labs_own(tmp_path: Path) -> None:
    generated(tmp_path)
    import json

    from nos.lab.addressing import plan, startup_configs

    topo = load_topology(LABS / "two-leaves.yaml")
    expected = startup_configs(topo, plan(topo))
    for node in ("leaf1", "leaf2"):
        assert json.loads((tmp_path / "lab" / "configs" / f"{node}.json").read_text()) == expected[node]
        assert (tmp_path / "lab" / "nodes" / node).is_dir()


def test_render_is_the_document(tmp_path: Path) -> None:
    topo = load_topology(LABS / "two-leaves.yaml")
    doc = compose_file(topo, tmp_path, LABS / "two-leaves.yaml")
    assert yaml.safe_load(render(topo, tmp_path, Published(), doc)) == doc


def test_mclag_labs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ComposeError, match="MC-LAG"):
        compose_file(load_topology(LABS / "mclag.yaml"), tmp_path, LABS / "mclag.yaml")
    out = CliRunner().invoke(cli, ["lab", "compose", str(LABS / "mclag.yaml"), "--dir", str(tmp_path / "m")])
    assert out.exit_code == 2 and "MC-LAG" in out.output


def test_docker_compose_yml_is_the_generators_single_switch() -> None:
    """The hand-written file and the generator describe one switch alike: the same roles, commands,
    healthchecks, dependencies and network modes (ports and paths there come from variables)."""
    static = yaml.safe_load((ROOT / "docker" / "docker-compose.yml").read_text())["services"]
    built = switch_services("", "./config", Published())
    assert set(static) == set(built)
    for name, service in built.items():
        for key in ("command", "healthcheck", "depends_on", "network_mode", "init", "restart"):
            assert static[name].get(key) == service.get(key), (name, key)
        assert len(static[name].get("ports", [])) == len(service.get("ports", [])), name
    assert static["mgmt"]["environment"] == {"NOS_PUBLISHED_ON": "${NOS_PUBLISH:-127.0.0.1}"}
