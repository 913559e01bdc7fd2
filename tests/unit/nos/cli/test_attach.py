"""What ``nos attach`` writes for a switch of docker-compose (nos.cli.attach), as plain data."""

from __future__ import annotations

from pathlib import Path

from nos.cli.attach import attach_records
from nos.runtime.rundir import RunDir


def test_the_socket_in_the_shared_run_dir_and_the_published_endpoints() -> None:
    run = RunDir(Path("/srv/sw"))
    endpoints, boot = attach_records(run, rest="http://127.0.0.1:8000/", gnmi="127.0.0.1:8080",
                                     redis_tcp="redis://127.0.0.1:6379", by="docker-compose", sku="S", mclag=False)
    assert endpoints == {"redis": "unix:///srv/sw/redis.sock", "redis_tcp": "redis://127.0.0.1:6379",
                         "redis_password_file": "/srv/sw/redis.pass", "rest": "http://127.0.0.1:8000",
                         "gnmi": "127.0.0.1:8080"}
    assert boot["state"] == "attached" and boot["by"] == "docker-compose" and boot["sku"] == "S"
    assert boot["heartbeat_daemons"] == ["syncd", "orchagent", "cfgmgrd"]


def test_only_what_is_given_and_iccpd_with_mclag() -> None:
    endpoints, boot = attach_records(RunDir(Path("/d")), rest=None, gnmi=None, redis_tcp=None, by="k8s", sku=None,
                                     mclag=True)
    assert endpoints == {"redis": "unix:///d/redis.sock"}
    assert boot["heartbeat_daemons"] == ["syncd", "orchagent", "cfgmgrd", "iccpd"]
