"""``nos fabric run TOPOLOGY FILE.cm``: an htsim connection matrix runs on a fabric built without
daemons; a bad matrix or one for another host count exits 2 naming what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fastpath.fabric import chain_allreduce
from fastpath.fabric.connection_matrix import write_connection_matrix
from nos.cli.main import cli


def test_an_htsim_matrix_runs_and_every_flow_finishes(tmp_path: Path) -> None:
    matrix = tmp_path / "allreduce.cm"
    matrix.write_text(write_connection_matrix(chain_allreduce(16, 4, 50_000, seed=2), 16))
    out = CliRunner().invoke(cli, ["fabric", "run", "leaf-spine:2,2,8", str(matrix), "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["scenario"] == "allreduce" and doc["flows"] == 16 * 7 == doc["finished"]
    assert doc["delivered_bytes"] == doc["bytes"] == 16 * 7 * 50_000 and doc["dropped_bytes"] == 0
    assert doc["workloads"][0]["name"] == "allreduce"


@pytest.mark.parametrize(("text", "named"), [
    ("Nodes 16\n0->99 id 1 start 0 size 10\n", "line 2: destination host 99 is not one of the 16 nodes"),
    ("Nodes 128\n0->1 id 1 start 0 size 10\n", "Nodes 128, but the fabric has 16 hosts"),
])
def test_a_bad_matrix_or_one_for_other_hosts_exits_2_naming_why(tmp_path: Path, text: str, named: str) -> None:
    matrix = tmp_path / "bad.cm"
    matrix.write_text(text)
    out = CliRunner().invoke(cli, ["fabric", "run", "leaf-spine:2,2,8", str(matrix)])
    assert out.exit_code == 2
    assert named in out.output
