"""Real SONiC config files (../shared/configs, never copied here): they read, round-trip, and validate.

Three files are fragments rendered by sonic-cfggen (buffers or QoS only, no PORT table): they validate as
fragments (``partial=True``) and, as whole configurations, fail only on their references to ports. The
sonic-utilities mock CONFIG_DB is a synthetic CLI fixture with a few genuine inconsistencies, listed
below: they are warnings (a port sharing lanes, references to objects that are not ports), so the file
loads, as SONiC's ``config load`` would load it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nos.config.files import read_config_file, write_config_file
from nos.config.validate import validate_config

CONFIGS = Path(__file__).resolve().parents[4] / ".." / "shared" / "configs"
FILES = sorted(CONFIGS.glob("*.json")) if CONFIGS.is_dir() else []

FRAGMENTS = {
    "buildimage_sample_output_buffers-dell6100.json",
    "buildimage_sample_output_qos-arista7800r3-48cq2-lc.json",
    "utilities_qos_config_input_config_qos.json",
}
MOCK = "utilities_mock_tables_config_db.json"
KNOWN_WARNINGS = {
    MOCK: [
        "PORT|Ethernet32: field 'lanes' = '13,14,15,16': lane 16 is also used by port 'Ethernet16'",
        "VXLAN_TUNNEL_MAP|vtep1|map_100_Vlan100: field 'vlan' = 'Vlan100': references VLAN 'Vlan100', which "
        "is "
        "not in VLAN",
        "VXLAN_TUNNEL_MAP|vtep1|map_101_Vlan101: field 'vlan' = 'Vlan101': references VLAN 'Vlan101', which "
        "is "
        "not in VLAN",
        "VXLAN_TUNNEL_MAP|vtep1|map_102_Vlan102: field 'vlan' = 'Vlan102': references VLAN 'Vlan102', which "
        "is "
        "not in VLAN",
        "VXLAN_TUNNEL_MAP|vtep1|map_200_Vlan200: field 'vlan' = 'Vlan200': references VLAN 'Vlan200', which "
        "is "
        "not in VLAN",
        "PORT_QOS_MAP|Ethernet0: field 'scheduler' = 'port_scheduler': references scheduler "
        "'port_scheduler', "
        "which is not in SCHEDULER",
    ]
}



def _ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


def test_the_shared_files_are_all_here() -> None:
    assert len(FILES) >= 6, f"the real SONiC configs are read from {CONFIGS} (beside the project), not found"
    assert FRAGMENTS | {MOCK} <= set(_ids(FILES))


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_reads_and_round_trips(path: Path, tmp_path: Path) -> None:
    config = read_config_file(path)
    assert config
    saved = tmp_path / "config_db.json"
    write_config_file(saved, config)
    assert read_config_file(saved) == config


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_validates(path: Path) -> None:
    config = read_config_file(path)
    report = validate_config(config, partial=path.name in FRAGMENTS)
    assert report.ok, [str(error) for error in report.errors]
    assert [str(warning) for warning in report.warnings] == KNOWN_WARNINGS.get(path.name, [])


@pytest.mark.parametrize("path", [p for p in FILES if p.name in FRAGMENTS], ids=lambda path: path.name)
def test_fragments_fail_as_whole_configs_only_on_ports(path: Path) -> None:
    report = validate_config(read_config_file(path))
    assert report.errors
    assert all("which is not in PORT" in str(error) for error in report.errors)


def test_the_yang_sample_uses_every_feature_family_and_passes() -> None:
    config = read_config_file(CONFIGS / "buildimage_yang-models_sample_config_db.EXTRACTED.json")
    for table in (
        "PORT",
        "PORTCHANNEL_MEMBER",
        "VLAN_MEMBER",
        "VLAN_SUB_INTERFACE",
        "BUFFER_PG",
        "QUEUE",
        "PFC_WD",
        "VXLAN_TUNNEL_MAP",
        "MCLAG_INTERFACE",
        "NEIGH",
        "STATIC_ROUTE",
        "WRED_PROFILE",
    ):
        assert config[table], table
    report = validate_config(config)
    assert report.ok
    assert "ACL_RULE" in report.unknown_tables


def test_flat_dump_details_survive_reading() -> None:
    config = read_config_file(CONFIGS / MOCK)
    assert config["VLAN"]["Vlan1000"]["dhcp_servers"] == ["192.0.0.1", "192.0.0.2", "192.0.0.3", "192.0.0.4"]
    assert config["PORTCHANNEL_MEMBER"]["PortChannel0001|Ethernet112"] == {}
    assert config["ACL_TABLE"]["DATAACLV4V6"]["stage"] == "ingress"  # a redis-dump record, unwrapped
    # the legacy [TABLE|name] references of this fixture are accepted
    assert config["QUEUE"]["Ethernet0|0"]["scheduler"] == "[SCHEDULER|scheduler.0]"


def test_dynamic_buffer_model_null_pg_profiles_pass() -> None:
    config = read_config_file(CONFIGS / "utilities_db_migrator_acs-msn2700-t1-version_3_0_3.json")
    assert config["BUFFER_PG"]["Ethernet0|3-4"] == {"profile": "NULL"}
    assert validate_config(config).ok


def test_the_largest_file_validates_well_under_100_ms() -> None:
    largest = max(FILES, key=lambda path: sum(len(rows) for rows in read_config_file(path).values()))
    config = read_config_file(largest)
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        validate_config(config, partial=largest.name in FRAGMENTS)
        timings.append(time.perf_counter() - start)
    assert min(timings) < 0.05
