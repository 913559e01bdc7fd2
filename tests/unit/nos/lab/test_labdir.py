"""Finding a lab by name, or the only one running, in a labs root of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nos.lab.labdir import LabDir, LabNotFound, find_lab, node_run_dir


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NOS_LABS_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def live_pid() -> Iterator[int]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


def make_lab(name: str, pid: int | None) -> LabDir:
    lab = LabDir.named(name)
    lab.write_state({"name": name, "state": "ready", "nodes": {"leaf1": {"run_dir": "/r/leaf1"}}})
    if pid is not None:
        lab.pid_file.write_text(f"{pid}\n")
    return lab


def test_without_a_name_the_only_running_lab_is_found(root: Path, live_pid: int) -> None:
    make_lab("a", live_pid)
    make_lab("b", None)  # stopped: not a candidate
    assert find_lab(None).name == "a"
    assert node_run_dir(None, "leaf1") == Path("/r/leaf1")


def test_several_running_labs_need_a_name(root: Path, live_pid: int) -> None:
    make_lab("a", live_pid)
    make_lab("b", os.getpid())
    with pytest.raises(LabNotFound, match=r"several labs are running \(a, b\)"):
        find_lab(None)
    assert find_lab("b").name == "b"


def test_what_is_missing_is_named(root: Path) -> None:
    with pytest.raises(LabNotFound, match="no lab is running"):
        find_lab(None)
    with pytest.raises(LabNotFound, match="no lab 'x'"):
        find_lab("x")
    make_lab("a", os.getpid())
    with pytest.raises(LabNotFound, match=r"no switch 'spine1' in lab a \(switches: leaf1\)"):
        node_run_dir("a", "spine1")


def test_cuts_round_trip(root: Path) -> None:
    lab = make_lab("a", None)
    assert lab.cuts() == frozenset()
    lab.write_cuts(frozenset({"x--y"}))
    assert lab.cuts() == frozenset({"x--y"})
