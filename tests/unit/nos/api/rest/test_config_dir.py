"""Which files REST operations may name: the rule on paths, on a directory tree in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from nos.api.rest.config_dir import ConfigDir, switch_files
from nos.api.rest.errors import ApiError
from nos.runtime.rundir import RunDir


def test_every_file_the_run_directory_names_is_the_switchs_own_but_the_saved_config(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    own = switch_files(tmp_path)
    assert {run.credentials_file, run.endpoints_file, run.db_config_file, run.boot_file, run.pid_file,
            run.gnmi_status_file, run.gnmi_socket, run.logs} <= own
    assert run.saved_config_file not in own and tmp_path not in own


def test_paths_resolve_inside_the_directory(tmp_path: Path) -> None:
    files = ConfigDir.of(tmp_path, tmp_path)
    assert files.file("a.json") == tmp_path / "a.json"
    assert files.file(" ./sub/b.json ") == tmp_path / "sub" / "b.json"
    assert files.file(str(tmp_path / "config_db.json")) == tmp_path / "config_db.json"


def test_a_directory_reached_through_a_symbolic_link_is_the_same_directory(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    files = ConfigDir.of(tmp_path / "alias", tmp_path / "alias")
    assert files.file(str(tmp_path / "alias" / "x.json")) == tmp_path / "real" / "x.json"
    assert files.file(str(tmp_path / "real" / "x.json")) == tmp_path / "real" / "x.json"
    with pytest.raises(ApiError, match="the switch's own files"):
        files.file(str(tmp_path / "real" / "credentials.json"))


@pytest.mark.parametrize(("given", "status"), [("..", 400), ("../x.json", 400), ("a/../../x.json", 400),
                                               ("x\0.json", 400), (".json", 400), ("x.JSON.txt", 400),
                                               ("/x.json", 403), ("//tmp/x.json", 403)])
def test_refused_paths(tmp_path: Path, given: str, status: int) -> None:
    with pytest.raises(ApiError) as error:
        ConfigDir.of(tmp_path, tmp_path).file(given)
    assert error.value.status == status and error.value.path == "path"
    assert f"path '{given}'" in error.value.message and str(tmp_path) in error.value.message
