"""A running lab's directory: ``~/.nos/labs/<name>/`` (root: ``$NOS_LABS_DIR``).

Files: ``lab.json`` (the lab supervisor's state: ``starting``, ``ready``, ``failed`` with its error,
``stopping``; its pid, the topology file, every switch's role and run dir, the boot time),
``supervisor.pid``, ``cuts.json`` (links cut with ``nos lab link down``, read by the supervisor),
``logs/lab.log``, and per switch ``nodes/<node>/`` (its run dir: what ``nos --lab NAME --node NODE``
points every command at) and ``configs/<node>.json`` (its generated startup config).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nos.runtime.rundir import RunDir, live_pid, read_json, write_json_atomic

LABS_ENV = "NOS_LABS_DIR"


def labs_root() -> Path:
    """Where labs live: ``$NOS_LABS_DIR`` or ``~/.nos/labs``."""
    env = os.environ.get(LABS_ENV)
    return (Path(env).expanduser() if env else Path.home() / ".nos" / "labs").resolve()


@dataclass(frozen=True)
class LabDir:
    """Paths of one lab's directory."""

    path: Path

    @classmethod
    def named(cls, name: str) -> LabDir:
        return cls(labs_root() / name)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def state_file(self) -> Path:
        return self.path / "lab.json"

    @property
    def pid_file(self) -> Path:
        return self.path / "supervisor.pid"

    @property
    def cuts_file(self) -> Path:
        return self.path / "cuts.json"

    @property
    def log_file(self) -> Path:
        return self.path / "logs" / "lab.log"

    @property
    def iccp_hosts_file(self) -> Path:
        """MC-LAG switches' addresses -> their management addresses (iccpd's NOS_ICCP_HOSTS)."""
        return self.path / "iccp_hosts.json"

    def run_dir(self, node: str) -> RunDir:
        return RunDir(self.path / "nodes" / node)

    def config_file(self, node: str) -> Path:
        return self.path / "configs" / f"{node}.json"

    def state(self) -> dict[str, Any] | None:
        data = read_json(self.state_file)
        return data if isinstance(data, dict) else None

    def write_state(self, state: dict[str, Any]) -> None:
        write_json_atomic(self.state_file, state)

    def supervisor_pid(self) -> int | None:
        """The pid of this lab's live supervisor, or None."""
        return live_pid(self.pid_file)

    def cuts(self) -> frozenset[str]:
        """The links cut by ``nos lab link down``, each as ``link_id`` names it."""
        data = read_json(self.cuts_file)
        return frozenset(str(c) for c in data) if isinstance(data, list) else frozenset()

    def write_cuts(self, cuts: frozenset[str]) -> None:
        write_json_atomic(self.cuts_file, sorted(cuts))


def running_labs() -> list[LabDir]:
    """Labs whose supervisor is alive, by name."""
    root = labs_root()
    if not root.is_dir():
        return []
    return [LabDir(p) for p in sorted(root.iterdir()) if p.is_dir() and LabDir(p).supervisor_pid() is not None]


class LabNotFound(LookupError):
    """No lab by that name, or no name given with none or several running."""


def find_lab(name: str | None) -> LabDir:
    """The lab called ``name``; without a name, the only running lab."""
    if name:
        lab = LabDir.named(name)
        if lab.state() is None:
            raise LabNotFound(f"no lab {name!r} in {labs_root()}")
        return lab
    running = running_labs()
    if len(running) == 1:
        return running[0]
    if not running:
        raise LabNotFound(f"no lab is running (in {labs_root()}); start one with 'nos lab up FILE'")
    raise LabNotFound(f"several labs are running ({', '.join(lab.name for lab in running)}): name one with --lab")


def node_run_dir(lab_name: str | None, node: str) -> Path:
    """The run dir of switch ``node`` of lab ``lab_name`` (default: the only running lab)."""
    lab = find_lab(lab_name)
    nodes = (lab.state() or {}).get("nodes") or {}
    if node not in nodes:
        raise LabNotFound(f"no switch {node!r} in lab {lab.name} (switches: {', '.join(nodes) or 'none'})")
    return Path(nodes[node]["run_dir"])
