"""What each container of a docker-compose switch runs (nos.runtime.container), as plain data."""

from __future__ import annotations

from pathlib import Path

import pytest

from nos.runtime.container import RoleError, RoleOptions, children, health_record, parse_args
from nos.runtime.readiness import Check

RUN = Path("/var/run/nos")


def plan(role: str, **options: object) -> dict[str, list[str]]:
    return dict(children(RoleOptions(role, RUN, **options), python="py"))  # type: ignore[arg-type]


def test_each_role_runs_the_modules_nos_up_runs_on_the_shared_socket() -> None:
    url = ["--redis", "unix:///var/run/nos/redis.sock"]
    assert plan("syncd") == {"syncd": ["py", "-m", "syncd_sim", *url]}
    assert plan("swss") == {"orchagent": ["py", "-m", "orchagent", *url], "cfgmgrd": ["py", "-m", "nos.cfgmgr", *url]}
    assert list(plan("swss")) == ["orchagent", "cfgmgrd"]  # nos up's order: orchagent before the managers
    assert plan("database") == {"redis_guard": ["py", "-m", "nos.runtime.redis_guard", "--listen", "0.0.0.0:6379",
                                                "--unix", "/var/run/nos/redis.sock",
                                                "--password-file", "/var/run/nos/redis.pass"]}


def test_swss_runs_iccpd_only_with_an_mclag_domain() -> None:
    opts = RoleOptions("swss", RUN)
    assert [name for name, _ in children(opts, mclag=True)] == ["orchagent", "cfgmgrd", "iccpd"]
    assert [name for name, _ in children(opts, mclag=False)] == ["orchagent", "cfgmgrd"]


def test_mgmt_listens_everywhere_and_names_where_it_is_published() -> None:
    got = plan("mgmt", rest_port=8000, gnmi_port=8080, published_on="127.0.0.1")
    rest, gnmi = got["rest"], got["gnmi"]
    for argv in (rest, gnmi):
        assert argv[argv.index("--host") + 1] == "0.0.0.0"
        assert argv[argv.index("--published-on") + 1] == "127.0.0.1"
        assert argv[argv.index("--run-dir") + 1] == "/var/run/nos"
        assert argv[argv.index("--auth-file") + 1] == "/var/run/nos/credentials.json"
    assert rest[2] == "nos.api.rest" and rest[rest.index("--port") + 1] == "8000"
    assert rest[rest.index("--daemons") + 1] == "syncd,orchagent,cfgmgrd"
    assert gnmi[2] == "nos.api.gnmi" and gnmi[gnmi.index("--port") + 1] == "8080"
    assert "--published-on" not in plan("mgmt")["rest"]  # not told: the rule applies to 0.0.0.0 itself


def test_an_unknown_role_is_refused() -> None:
    with pytest.raises(RoleError, match="unknown role 'bgp'"):
        children(RoleOptions("bgp", RUN))


def test_health_is_written_only_while_every_check_passes() -> None:
    good, bad = Check("redis", True, "up"), Check("daemon syncd", False, "not running")
    record = health_record("syncd", [good], 12.5)
    assert record is not None and record["healthy"] and record["at"] == 12.5 and record["role"] == "syncd"
    assert health_record("syncd", [good, bad], 12.5) is None
    assert health_record("syncd", [], 12.5) is None


def test_flags_and_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NOS_RUN_DIR", str(tmp_path))
    monkeypatch.setenv("NOS_PUBLISHED_ON", "0.0.0.0")
    monkeypatch.setenv("NOS_SKU", "Force10-S6000")
    opts = parse_args(["mgmt", "--rest-port", "9000"])
    assert (opts.role, opts.run_dir, opts.rest_port, opts.published_on, opts.sku) == \
        ("mgmt", tmp_path.resolve(), 9000, "0.0.0.0", "Force10-S6000")
    assert opts.redis_url == f"unix://{tmp_path.resolve()}/redis.sock"
    monkeypatch.setenv("NOS_SKU", "")
    assert parse_args(["database"]).sku is None
