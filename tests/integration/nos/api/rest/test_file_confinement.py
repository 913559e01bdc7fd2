"""config-save, config-reload and checkpoints through REST stay in their directory: no '..', no path
outside, no symbolic link leading out, none of the switch's own files; ``--config-dir`` moves it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nos.api import auth
from nos.api.rest.app import create_app
from nos.config.files import read_config_file
from nos.db import ConfigDBConnector, Databases
from tests.integration.nos.api.rest.conftest import START, TestClient, errors_of
from tests.integration.nos.api.rest.test_operations import run_job

pytestmark = pytest.mark.integration

OTHER = {"PORT": START["PORT"], "VLAN": {"Vlan200": {"vlanid": "200"}}}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the run directory (tmp_path), holding a loadable configuration."""
    directory = tmp_path.parent / f"{tmp_path.name}-outside"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps(OTHER))
    return directory


def refused(client: TestClient, operation: str, body: dict[str, Any], status: int, *words: str) -> str:
    reply = client.post(f"/api/v1/operations/{operation}", json=body)
    assert reply.status_code == status, reply.text
    [error] = errors_of(reply)
    for word in words:
        assert word in error["error-message"], (word, error)
    return str(error.get("error-path"))


def test_save_takes_a_file_in_the_run_directory(client: TestClient, tmp_path: Path) -> None:
    for given, written in (("backup.json", tmp_path / "backup.json"),
                           (str(tmp_path / "absolute.json"), tmp_path / "absolute.json")):
        job = run_job(client, "config-save", {"path": given})
        assert job["state"] == "succeeded" and job["result"]["path"] == str(written)
        assert read_config_file(written) == START


@pytest.mark.parametrize(("given", "status", "why"), [
    ("../escape.json", 400, "'..'"),
    ("sub/../inside-anyway.json", 400, "'..'"),
    ("notes.txt", 400, "must end in .json"),
    ("", 400, "not a file name"),
    ("/nonexistent-nos-dir/escape.json", 403, "is outside the directory"),
    ("credentials.json", 403, "the switch's own files"),
    ("endpoints.json", 403, "the switch's own files"),
    ("database_config.json", 403, "the switch's own files"),
    ("logs/rest.json", 403, "the switch's own files"),
])
def test_save_refuses_paths_that_leave_the_directory_or_are_the_switchs_own(
        client: TestClient, tmp_path: Path, given: str, status: int, why: str) -> None:
    (tmp_path / "logs").mkdir(exist_ok=True)
    before = sorted(tmp_path.rglob("*"))
    assert refused(client, "config-save", {"path": given}, status, f"path '{given}'", why, str(tmp_path)) == "path"
    assert sorted(tmp_path.rglob("*")) == before


def test_save_refuses_an_absolute_path_outside_and_symbolic_links_that_lead_out(
        client: TestClient, tmp_path: Path, outside: Path) -> None:
    refused(client, "config-save", {"path": str(outside / "x.json")}, 403, "is outside the directory")
    (tmp_path / "link").symlink_to(outside, target_is_directory=True)
    (tmp_path / "evil.json").symlink_to(outside / "config.json")
    refused(client, "config-save", {"path": "link/x.json"}, 403, "symbolic link", str(outside / "x.json"))
    refused(client, "config-save", {"path": str(tmp_path / "evil.json")}, 403, "symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["config.json"]
    assert json.loads((outside / "config.json").read_text()) == OTHER  # not overwritten through the link


def test_reload_reads_only_the_directory(client: TestClient, cdb: ConfigDBConnector, tmp_path: Path,
                                         outside: Path) -> None:
    auth.add_user(tmp_path / auth.FILE_NAME, "admin", auth.ADMIN, "admin-secret-1")
    (tmp_path / "inner").symlink_to(outside / "config.json")
    refused(client, "config-reload", {"path": str(outside / "config.json")}, 403, "is outside")
    refused(client, "config-reload", {"path": "inner"}, 400, "must end in .json")
    os.rename(tmp_path / "inner", tmp_path / "inner.json")
    refused(client, "config-reload", {"path": "inner.json"}, 403, "symbolic link")
    refused(client, "config-reload", {"path": auth.FILE_NAME}, 403, "the switch's own files")
    refused(client, "config-reload", {"path": "../x.json"}, 400, "'..'")
    assert cdb.get_config() == START
    (tmp_path / "next.json").write_text(json.dumps(OTHER))
    assert run_job(client, "config-reload", {"path": "next.json"})["state"] == "succeeded"
    assert cdb.get_config() == OTHER


@pytest.fixture
def confined(dbs: Databases, cdb: ConfigDBConnector, tmp_path: Path) -> Iterator[TestClient]:
    (tmp_path / "configs").mkdir()
    app = create_app(dbs, run_dir=tmp_path / "run", config_dir=tmp_path / "configs")
    with TestClient(app) as client:
        yield client


def test_a_config_dir_moves_where_files_may_be_named(confined: TestClient, tmp_path: Path) -> None:
    assert run_job(confined, "config-save", {"path": "a.json"})["state"] == "succeeded"
    assert read_config_file(tmp_path / "configs" / "a.json") == START
    (tmp_path / "run").mkdir()
    refused(confined, "config-save", {"path": str(tmp_path / "run" / "b.json")}, 403, "is outside",
            str(tmp_path / "configs"))
    job = run_job(confined, "config-save")  # no path: the run directory's config_db.json, as before
    assert job["state"] == "succeeded" and job["result"]["path"] == str(tmp_path / "run" / "config_db.json")


def test_no_directory_means_no_named_files(dbs: Databases, cdb: ConfigDBConnector, tmp_path: Path) -> None:
    with TestClient(create_app(dbs)) as client:
        refused(client, "config-save", {"path": str(tmp_path / "x.json")}, 400, "no configuration directory")
        refused(client, "config-reload", {"path": str(tmp_path / "x.json")}, 400, "no configuration directory")
    assert not (tmp_path / "x.json").exists()


def test_checkpoints_stay_in_the_checkpoint_directory(client: TestClient, cdb: ConfigDBConnector, tmp_path: Path,
                                                      outside: Path) -> None:
    refused(client, "checkpoint", {"name": "../escape"}, 400, "checkpoint name '../escape'")
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "planted.cp.json").symlink_to(outside / "config.json")
    for operation in ("rollback", "delete-checkpoint", "checkpoint"):
        assert refused(client, operation, {"name": "planted"}, 403, "symbolic link", str(outside)) == "name"
    assert cdb.get_config() == START and (outside / "config.json").exists()
    (tmp_path / "checkpoints" / "planted.cp.json").unlink()
    (tmp_path / "checkpoints").rmdir()
    (tmp_path / "checkpoints").symlink_to(outside, target_is_directory=True)
    refused(client, "checkpoint", {"name": "fine"}, 403, "symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["config.json"]
