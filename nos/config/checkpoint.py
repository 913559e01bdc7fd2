"""Checkpoints and rollback, as SONiC's ``config checkpoint / rollback / list-checkpoints /
delete-checkpoint`` (sonic-utilities generic_config_updater): a checkpoint is the running
configuration saved as ``<run dir>/checkpoints/<name>.cp.json``; a rollback makes CONFIG_DB equal
to it in one transaction (validated whole first, all or nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from nos.config.apply import readable_config
from nos.config.errors import ConfigFileError
from nos.config.files import read_config_file, write_config_file
from nos.config.transaction import TxResult, replace_config
from nos.db.configdb import ConfigDBConnector

SUFFIX = ".cp.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class CheckpointError(ValueError):
    """A checkpoint name that is not allowed, or a checkpoint that does not exist."""


@dataclass(frozen=True)
class Checkpoint:
    name: str
    path: Path
    created: datetime
    rows: int | None = None


def directory(run_dir: Path) -> Path:
    return run_dir / "checkpoints"


def path_of(run_dir: Path, name: str) -> Path:
    """The file of checkpoint ``name``; raises CheckpointError for a name that is not allowed."""
    if not _NAME.fullmatch(name) or name.endswith(SUFFIX):
        raise CheckpointError(f"checkpoint name {name!r}: use letters, digits, '_', '.' and '-' "
                              "(at most 128, not starting with a symbol)")
    return directory(run_dir) / f"{name}{SUFFIX}"


def create(cdb: ConfigDBConnector, run_dir: Path, name: str) -> Checkpoint:
    """Save the running configuration as checkpoint ``name`` (replacing one of that name)."""
    path = path_of(run_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    config = readable_config(cdb, f"checkpoint {name}")  # one lacking a row would delete it at rollback
    write_config_file(path, config)
    return Checkpoint(name, path, _mtime(path), sum(len(rows) for rows in config.values()))


def list_all(run_dir: Path) -> list[Checkpoint]:
    """Every checkpoint, oldest first."""
    found = [Checkpoint(p.name[: -len(SUFFIX)], p, _mtime(p)) for p in directory(run_dir).glob(f"*{SUFFIX}")]
    return sorted(found, key=lambda c: (c.created, c.name))


def delete(run_dir: Path, name: str) -> None:
    path = path_of(run_dir, name)
    if not path.exists():
        raise CheckpointError(f"no checkpoint {name!r} (see list-checkpoints)")
    path.unlink()


def rollback(cdb: ConfigDBConnector, run_dir: Path, name: str, *, dry_run: bool = False) -> TxResult:
    """Make CONFIG_DB equal checkpoint ``name``; raises CheckpointError if there is no such checkpoint."""
    path = path_of(run_dir, name)
    if not path.exists():
        raise CheckpointError(f"no checkpoint {name!r} (see list-checkpoints)")
    try:
        config = read_config_file(path)
    except ConfigFileError as exc:
        raise CheckpointError(f"checkpoint {name!r} cannot be read: {exc}") from exc
    return replace_config(cdb, config, dry_run=dry_run)


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


__all__ = ["Checkpoint", "CheckpointError", "create", "delete", "directory", "list_all", "path_of", "rollback"]
