"""``nos traffic`` and ``nos trace`` refuse bad arguments before talking to a switch (no Redis here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from nos.cli.main import cli
from nos.cli.trace import packet_of


def nos(*args: str, code: int) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    return result.output


def test_missing_scenario_file(tmp_path: Path) -> None:
    out = nos("traffic", "run", str(tmp_path / "nope.yaml"), "--run-dir", str(tmp_path), code=2)
    assert "no scenario file" in out and "nos traffic list" in out


def test_invalid_scenario_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: t\nhosts: [{name: a, ports: Ethernet0}]\n"
                    "workloads: [{kind: incast, senders: a, receiver: a, size: 1XB}]\n")
    out = nos("traffic", "run", str(path), "--run-dir", str(tmp_path), code=2)
    assert f"Error: invalid scenario {path}: workloads[0].size: '1XB': unknown size unit 'XB'" in out


def test_no_switch_running(tmp_path: Path) -> None:
    out = nos("traffic", "run", "incast-64to1", "--run-dir", str(tmp_path), code=1)
    assert "no switch is running" in out


@pytest.mark.parametrize("timeout", ["0", "-1", "soon"])
def test_bad_timeout(tmp_path: Path, timeout: str) -> None:
    assert "--timeout" in nos("traffic", "run", "incast-64to1", "--timeout", timeout, code=2)


def test_list_shows_the_example_scenarios() -> None:
    out = nos("traffic", "list", code=0)
    for name in ("incast-64to1", "allreduce-8gpu", "permutation-128", "pause-storm", "dwrr-mix"):
        assert name in out
    assert "allreduce, incast" in out


@pytest.mark.parametrize(("args", "message"), [
    ([], "Missing option '--in-port'"),
    (["--in-port", "Ethernet0", "--src-mac", "00:11:22"], "is not a MAC address"),
    (["--in-port", "Ethernet0", "--dst-ip", "10.0.0.256"], "is not an IPv4 or IPv6 address"),
    (["--in-port", "Ethernet0", "--dscp", "64"], "0<=x<=63"),
    (["--in-port", "Ethernet0", "--proto", "sctpx"], "a number 0-255 or one of"),
    (["--in-port", "Ethernet0", "--vlan", "4095"], "0<=x<=4094"),
    (["--in-port", "Ethernet0", "--src-ip", "10.0.0.1", "--dst-ip", "::1"], "both be IPv4 or both IPv6"),
])
def test_trace_bad_options(tmp_path: Path, args: list[str], message: str) -> None:
    assert message in nos("trace", "packet", *args, "--run-dir", str(tmp_path), code=2)


def test_trace_packet_fields() -> None:
    packet = packet_of({"in_port": "Ethernet0", "src_mac": "00:11:22:33:44:55", "dst_ip": "10.0.0.2", "proto": 17,
                        "sport": 49152, "dport": 4791, "dscp": 26, "ttl": None, "vlan": None, "src_ip": None,
                        "dst_mac": None})
    assert packet == {"in_port": "Ethernet0", "src_mac": "00:11:22:33:44:55", "dst_ip": "10.0.0.2", "ip_proto": 17,
                      "l4_src": 49152, "l4_dst": 4791, "dscp": 26}


def test_the_progress_bar_appears_only_for_long_runs_on_a_terminal() -> None:
    import io

    from rich.console import Console

    from nos.cli.traffic import SHOW_PROGRESS_AFTER_S, ProgressBar
    from nos.traffic.client import JobStatus

    now = [0.0]
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with ProgressBar(True, console, clock=lambda: now[0]) as bar:
        bar(JobStatus("j", "queued"))
        assert bar.task is None                                      # a quick run shows nothing
        now[0] = SHOW_PROGRESS_AFTER_S + 0.1
        bar(JobStatus("j", "running", 0.42, 0.0021))
        assert bar.task is not None
        task = bar.bar.tasks[0]
        assert task.completed == 0.42 and task.description == "running, 2.100 ms simulated"
    assert not ProgressBar(True, Console(file=io.StringIO(), force_terminal=False)).enabled
    assert not ProgressBar(False, console).enabled                  # --json
