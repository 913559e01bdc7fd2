"""``nos traffic run`` and ``nos trace packet`` against a real Redis holding the 128x400G SKU's CONFIG_DB,
syncd_sim played by a thread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner, Result

from nos.cli.main import cli
from tests.integration.nos.traffic.conftest import finish_with
from tests.unit.nos.traffic.documents import sample_document

pytestmark = pytest.mark.integration


def nos(run_dir: str, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, [*args, "--run-dir", run_dir])
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    return result


def test_run_prints_the_summary_and_draws(run_dir: str, sku_config, responder, tmp_path: Path) -> None:
    answering = responder("NOS_TRAFFIC_REQUEST", finish_with(sample_document()))
    plot = tmp_path / "incast.png"
    out = nos(run_dir, "traffic", "run", "incast-64to1", "--plot", str(plot)).output
    assert "sample: 4/4 flows finished" in out and "Workloads" in out and "GPU wait share" in out
    assert f"Plot written to {plot}" in out and plot.read_bytes()[:4] == b"\x89PNG"
    assert len(answering.ids) == 1


def test_run_json_is_the_result_document(run_dir: str, sku_config, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST", finish_with(sample_document()))
    assert json.loads(nos(run_dir, "traffic", "run", "configs/scenarios/incast-64to1.yaml", "--json").output) == \
        sample_document()


def test_a_port_the_switch_lacks_is_refused_before_asking(run_dir: str, sku_config, responder,
                                                          tmp_path: Path) -> None:
    answering = responder("NOS_TRAFFIC_REQUEST", finish_with(sample_document()))
    path = tmp_path / "far.yaml"
    path.write_text("name: far\nhosts: [{name: a, ports: Ethernet600-Ethernet604}, {name: b, ports: Ethernet0}]\n"
                    "workloads: [{kind: permutation, size: 1MB}]\n")
    out = nos(run_dir, "traffic", "run", str(path), code=2).output
    assert "invalid scenario far: hosts[0].ports: the range holds no port of the switch (got 'Ethernet600-" in out
    assert answering.ids == []


def test_a_failed_run_exits_1_with_syncds_error(run_dir: str, sku_config, responder) -> None:
    responder("NOS_TRAFFIC_REQUEST", lambda client, job_id: client.hset(
        f"NOS_TRAFFIC_JOB|{job_id}", mapping={"state": "failed", "error": "model: out of memory"}))
    out = nos(run_dir, "traffic", "run", "incast-64to1", code=1).output
    assert "Error: traffic run 'incast-64to1': model: out of memory" in out


def test_no_syncd_listening(run_dir: str, sku_config) -> None:
    out = nos(run_dir, "traffic", "run", "incast-64to1", code=1).output
    assert "syncd_sim is not listening on NOS_TRAFFIC_REQUEST" in out


def test_trace_prints_each_step(run_dir: str, responder) -> None:
    def handle(client: redis.Redis, trace_id: str) -> None:
        packet = json.loads(client.hget(f"NOS_TRACE|{trace_id}", "packet") or "{}")
        assert packet == {"in_port": "Ethernet0", "dst_ip": "10.0.0.2", "dscp": 26, "ip_proto": 17}
        answer = {"steps": [{"stage": "ingress", "detail": "Ethernet0 admin up, oper up"},
                            {"stage": "route", "detail": "10.0.0.0/31 via Ethernet4"}],
                  "result": {"action": "forward", "egress_port": "Ethernet4", "queue": 3}}
        client.hset(f"NOS_TRACE|{trace_id}", mapping={"state": "done", "result": json.dumps(answer)})

    responder("NOS_TRACE_REQUEST", handle)
    out = nos(run_dir, "trace", "packet", "--in-port", "Ethernet0", "--dst-ip", "10.0.0.2", "--dscp", "26",
              "--proto", "udp").output
    assert "route    10.0.0.0/31 via Ethernet4" in out
    assert "Result: action=forward, egress_port=Ethernet4, queue=3" in out
