"""The CLI on bad input and a hostile file system: config files nested past the limit are refused with
one line naming it (once a RecursionError traceback), and ``config save`` to a full disk, a file that
may not grow or a path that cannot be written is one line naming the path (once a traceback), the
file as it was; CONFIG_DB is never changed."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nos.config import checkpoint
from tests.integration.nos.cli.conftest import config_dump, nos

pytestmark = pytest.mark.integration

DEEP = "[" * 5000 + "]" * 5000
LIMIT = "the JSON nests deeper than 64 levels of arrays and objects (the limit; a config_db.json needs 4)"


def _deep(tmp_path: Path, name: str = "deep.json") -> str:
    path = tmp_path / name
    path.write_text(DEEP)
    return str(path)


@pytest.mark.parametrize("command", [("config", "load"), ("config", "reload"), ("config", "apply-patch"),
                                     ("config", "replace")])
def test_a_config_file_nested_past_the_limit_is_refused_naming_it(sku_config, raw, run_dir, tmp_path, command):
    before = config_dump(raw)
    result = nos(run_dir, *command, _deep(tmp_path), code=1 if command[1] in ("load", "reload") else 2)
    assert f"deep.json: {LIMIT}" in result.output and "CONFIG_DB unchanged" in result.output
    assert isinstance(result.exception, SystemExit)
    assert config_dump(raw) == before


def test_a_checkpoint_nested_past_the_limit_is_refused_naming_it(sku_config, raw, run_dir):
    before = config_dump(raw)
    target = checkpoint.directory(Path(run_dir)) / f"deep{checkpoint.SUFFIX}"
    target.parent.mkdir(parents=True)
    target.write_text(DEEP)
    result = nos(run_dir, "config", "rollback", "deep", code=2)
    assert LIMIT in result.output and "Traceback" not in result.output
    assert config_dump(raw) == before


def test_config_save_to_a_path_that_cannot_be_written_names_it(sku_config, run_dir, tmp_path):
    (tmp_path / "plain").write_text("a file, not a directory")
    for target in (tmp_path / "plain" / "config_db.json", tmp_path / "missing" / "config_db.json"):
        result = nos(run_dir, "config", "save", str(target), code=1)
        assert result.output.startswith(f"Error: {target}: cannot write: ") and result.output.count("\n") == 1
        assert isinstance(result.exception, SystemExit)  # once: ConfigFileError, a traceback


def _save_in_child(run_dir: str, target: Path, file_size_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``nos config save`` as its own process (``RLIMIT_FSIZE``, if given, caps what it may write)."""
    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.run([sys.executable, "-m", "nos.cli.main", "config", "save", str(target), "--run-dir", run_dir],
                          capture_output=True, text=True, timeout=60, preexec_fn=limit,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def test_config_save_that_may_not_grow_the_file_is_one_line_and_keeps_the_old_file(sku_config, run_dir, tmp_path):
    target = tmp_path / "config_db.json"
    target.write_text('{"OLD": {}}\n')
    done = _save_in_child(run_dir, target, file_size_limit=4096)  # the config is ~200 KB: EFBIG
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == f"Error: {target}: cannot write: File too large; {target} is as it was\n"
    assert target.read_text() == '{"OLD": {}}\n' and list(tmp_path.glob(".config_db.json.*")) == []


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs. Filling a real disk is not something a test may do, and only root can mount one
    this small: as a user (or where mount(8) is missing or refused) the full-disk case cannot be made,
    and the test is skipped saying which (CI runs as root, where it runs)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a 64 KiB tmpfs, and mounting one needs root")
    if shutil.which("mount") is None:
        pytest.skip("a full disk needs a 64 KiB tmpfs, and mount(8) is not installed")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a full disk needs a 64 KiB tmpfs, and mount refused it: {mounted.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_config_save_to_a_full_disk_is_one_line(sku_config, run_dir, tiny_disk):
    target = tiny_disk / "config_db.json"
    done = _save_in_child(run_dir, target)
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"Error: {target}: cannot write: No space left on device; {target} is as it was\n"
    assert list(tiny_disk.iterdir()) == []  # no half-written file, no temporary left behind


def test_a_saved_config_is_unaffected_by_the_limit(sku_config, run_dir, tmp_path):
    """The 128-port SKU's whole running config passes the check (it nests 4 deep)."""
    target = tmp_path / "saved.json"
    nos(run_dir, "config", "save", str(target))
    assert nos(run_dir, "config", "reload", str(target)).output.startswith("Reloaded")
    assert json.loads(target.read_text())["PORT"]["Ethernet0"]["lanes"] == "0,1,2,3"
