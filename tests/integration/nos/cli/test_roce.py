"""``nos config roce enable|disable``, ``nos show roce`` and ``nos roce check`` against a real Redis
holding the 128x400G SKU's default configuration (no daemons: the commands apply the expansion in
their own transaction)."""

from __future__ import annotations

import json

import pytest

from tests.integration.nos.cli.conftest import config_dump, nos

pytestmark = pytest.mark.integration


def test_enable_check_show_disable(sku_config, raw, run_dir):
    before = config_dump(raw)
    failed = nos(run_dir, "roce", "check", code=1)  # SONiC's defaults are not lossless for NVIDIA RoCE
    assert "dscp_wrong_priority" in failed.output and "Expected: profile nvidia" in failed.output

    out = nos(run_dir, "config", "roce", "enable", "--cable-length", "40m")
    assert "RoCE intent enabled (cable_length=40m)" in out.output
    cdb = raw(4)
    assert cdb.hget("BUFFER_PG|Ethernet508|3", "profile") == "pg_lossless_400000_40m_profile"
    assert cdb.hget("CABLE_LENGTH|AZURE", "Ethernet8") == "40m"

    ok = nos(run_dir, "roce", "check", "--json")
    report = json.loads(ok.output)
    assert report["lossless"] and report["ports"] == 128 and report["expected"] == "intent"
    shown = json.loads(nos(run_dir, "show", "roce", "--json").output)
    assert shown["intent"]["in_sync"] and shown["intent"]["resolved"]["cable_length"] == "40m"
    assert "CONFIG_DB in sync" in nos(run_dir, "show", "roce").output

    nos(run_dir, "config", "roce", "enable", "--no-pfcwd")  # changes one option, keeps the others
    assert cdb.hgetall("ROCE|global") == {"cable_length": "40m", "pfcwd": "off"}
    assert not cdb.exists("PFC_WD|Ethernet0")

    cdb.hdel("PORT_QOS_MAP|Ethernet4", "pfc_enable")  # drift: the check names it
    text = nos(run_dir, "roce", "check", code=1).output
    assert "Ethernet4" in text and "pfc_not_enabled" in text
    assert "1 rows differ" in nos(run_dir, "show", "roce").output

    nos(run_dir, "config", "roce", "disable")
    assert config_dump(raw) == before


def test_dry_run_prints_the_exact_changes_and_writes_nothing(sku_config, raw, run_dir):
    before = config_dump(raw)
    out = nos(run_dir, "config", "roce", "enable", "--profile", "sonic", "--dry-run").output
    patch = json.loads(out.split("** DRY RUN EXECUTION **", 1)[1].rsplit("CONFIG_DB unchanged", 1)[0])
    assert {"op": "add", "path": "/ROCE", "value": {"global": {"profile": "sonic"}}} in patch
    assert {"op": "replace", "path": "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "value": "ROCE"} in patch
    assert config_dump(raw) == before


def test_invalid_options_are_refused_with_table_key_field(sku_config, raw, run_dir):
    before = config_dump(raw)
    out = nos(run_dir, "config", "roce", "enable", "--dscp", "26", "--cnp-dscp", "26", "--cable-length", "7m",
              code=2).output
    assert "ROCE|global: field 'cnp_dscp' = '26'" in out and "CONFIG_DB unchanged." in out
    out = nos(run_dir, "config", "roce", "enable", "--cable-length", "7m", code=2).output
    assert "ROCE|global: field 'cable_length' = '7m'" in out and "40m" in out
    out = nos(run_dir, "config", "roce", "enable", "--ports", "Ethernet1", code=2).output
    assert "ROCE|global: field 'ports'" in out
    assert config_dump(raw) == before


def test_json_output_of_config_commands(sku_config, raw, run_dir):
    dry = json.loads(nos(run_dir, "config", "roce", "enable", "--mode", "lossy", "--dry-run", "--json").output)
    assert dry["dry_run"] and not dry["applied"] and dry["intent"] == {"mode": "lossy"} and dry["patch"]
    done = json.loads(nos(run_dir, "config", "roce", "enable", "--mode", "lossy", "--json").output)
    assert done["applied"] and done["changes"] == dry["changes"] and done["patch"] is None
    assert raw(4).hget("PORT_QOS_MAP|Ethernet0", "dscp_to_tc_map") == "ROCE"
    off = json.loads(nos(run_dir, "config", "roce", "disable", "--json").output)
    assert off["applied"] and off["intent"] is None
