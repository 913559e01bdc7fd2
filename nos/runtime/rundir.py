"""A switch's run directory: where its socket, pid, logs, endpoints and saved config live.

Every ``nos`` command that talks to a running switch finds it by ``--run-dir DIR`` or
``NOS_RUN_DIR``, defaulting to ``~/.nos/default`` (what a plain ``nos up`` uses).

Files: ``endpoints.json`` (written once the switch is ready), ``supervisor.pid``, ``boot.json`` (boot
progress, for ``nos up -d``; state ``attached`` for a switch whose processes run elsewhere, such as
docker-compose's containers, that ``nos attach`` points the commands at), ``database_config.json``
(SONiC's, rendered with this switch's socket and port), ``config_db.json`` (the saved startup
configuration), ``credentials.json`` (API users and tokens, hashes only), ``gnmi.json`` (the gNMI
server's pid, bound address and port, and its local socket ``gnmi.sock``), ``redis.sock`` (Redis: owner
only, no password), ``redis.pass`` (the password of the Redis TCP endpoint, mode 600; kept across runs),
``config_snapshot.json`` and ``config_journal.jsonl`` (CONFIG_DB's journal while the switch runs, see
``nos.runtime.journal_files``), ``redis.log``, ``logs/<daemon>.log`` and ``logs/supervisor.log`` (the
supervisor's events: restarts with their causes, Redis recoveries).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nos.runtime.procs import pid_alive

DEFAULT_RUN_DIR = Path.home() / ".nos" / "default"
ATTACHED = "attached"  # boot.json state of a switch that ``nos attach`` points the commands at


def default_run_dir() -> Path:
    env = os.environ.get("NOS_RUN_DIR")
    return Path(env).expanduser() if env else DEFAULT_RUN_DIR


def write_json_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as out:
        json.dump(data, out, indent=2, sort_keys=True)
        out.write("\n")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    """The JSON in ``path``, or None when it is missing or not JSON (a file being replaced, garbage)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def live_pid(pid_file: Path) -> int | None:
    """The pid written in ``pid_file`` if that process runs, else None (no file, garbage, gone)."""
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if pid_alive(pid) else None


@dataclass(frozen=True)
class RunDir:
    """Paths of one switch's run directory."""

    path: Path

    @classmethod
    def resolve(cls, path: str | Path | None = None) -> RunDir:
        return cls(Path(path).expanduser().resolve() if path else default_run_dir().resolve())

    @property
    def endpoints_file(self) -> Path:
        return self.path / "endpoints.json"

    @property
    def pid_file(self) -> Path:
        return self.path / "supervisor.pid"

    @property
    def boot_file(self) -> Path:
        return self.path / "boot.json"

    @property
    def db_config_file(self) -> Path:
        return self.path / "database_config.json"

    @property
    def saved_config_file(self) -> Path:
        return self.path / "config_db.json"

    @property
    def credentials_file(self) -> Path:
        return self.path / "credentials.json"

    @property
    def redis_password_file(self) -> Path:
        return self.path / "redis.pass"

    @property
    def gnmi_status_file(self) -> Path:
        return self.path / "gnmi.json"

    @property
    def gnmi_socket(self) -> Path:
        return self.path / "gnmi.sock"

    def gnmi_status(self) -> dict[str, Any] | None:
        data = read_json(self.gnmi_status_file)
        return data if isinstance(data, dict) else None

    @property
    def logs(self) -> Path:
        return self.path / "logs"

    def log_file(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def endpoints(self) -> dict[str, str] | None:
        data = read_json(self.endpoints_file)
        return data if isinstance(data, dict) else None

    def boot_state(self) -> dict[str, Any] | None:
        data = read_json(self.boot_file)
        return data if isinstance(data, dict) else None

    def supervisor_pid(self) -> int | None:
        """The pid of a live ``nos up`` for this run dir, or None."""
        return live_pid(self.pid_file)

    def attachment(self) -> dict[str, Any] | None:
        """What ``nos attach`` wrote when the switch of this run dir runs elsewhere (its processes in
        containers, say): ``boot.json`` with state ``attached``; None for a switch of ``nos up``."""
        boot = self.boot_state()
        return boot if boot is not None and boot.get("state") == ATTACHED else None
