"""``nos show qos interface``, ``show ecn`` and ``show pfc priority`` against the 32x100G SKU's default
CONFIG_DB (SONiC's qos_config.j2 defaults) in a real Redis."""

from __future__ import annotations

import json

import pytest

from nos.config.files import read_config_file
from nos.db import ConfigDBConnector
from nos.paths import skus_dir
from tests.integration.nos.cli.conftest import nos

pytestmark = pytest.mark.integration


@pytest.fixture
def s6000(dbs):
    ConfigDBConnector(dbs["CONFIG_DB"]).mod_config(read_config_file(skus_dir() / "Force10-S6000" / "config_db.json"))
    return dbs


def test_show_qos_interface_lists_the_default_maps_and_queues(run_dir, s6000):
    out = nos(run_dir, "show", "qos", "interface", "Ethernet0").output
    assert out.startswith("Interface: Ethernet0\n")
    assert any(line.split() == ["pfc_enable", "3,4"] for line in out.splitlines())
    found = json.loads(nos(run_dir, "show", "qos", "interface", "Ethernet0", "--json").output)
    assert found["Ethernet0"]["port_qos_map"]["tc_to_pg_map"] == "AZURE"
    assert found["Ethernet0"]["queues"]["3"] == {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
    assert "Cannot find interface Ethernet1" in nos(run_dir, "show", "qos", "interface", "Ethernet1", code=1).output


def test_show_ecn_and_pfc_priority(run_dir, s6000):
    out = nos(run_dir, "show", "ecn").output
    assert out.startswith("Profile: AZURE_LOSSLESS\n")
    assert json.loads(nos(run_dir, "show", "ecn", "--json").output)["AZURE_LOSSLESS"]["ecn"] == "ecn_all"
    assert json.loads(nos(run_dir, "show", "pfc", "priority", "Ethernet0", "--json").output) == {"Ethernet0": "3,4"}
