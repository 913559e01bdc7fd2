"""Where the REST operations may read and write files: one configuration directory.

``config-save`` and ``config-reload`` take an optional ``path``; a server writes as whoever runs it
(root, on a switch), so a path is confined to the configuration directory: the REST server's
``--config-dir``, by default its ``--run-dir`` (where ``config_db.json`` lives). A path may be
relative to it (``backup.json``) or absolute inside it. Refused, naming the path and the directory:

* 400: a ``..`` component (even one that would stay inside), a NUL byte, a name not ending in ``.json``;
* 403: an absolute path outside the directory, a path that leads out of it through a symbolic link
  (checked on the resolved path, again just before the file is opened), and the switch's own files
  in the run directory (``credentials.json``, ``endpoints.json``, ``database_config.json``, ...:
  every path ``nos.runtime.rundir.RunDir`` names but the saved config, and everything under ``logs``).

Checkpoints (``checkpoint``, ``rollback``, ``delete-checkpoint``) are named, not given as paths, and
live in ``<run dir>/checkpoints``; a checkpoint file that leads out of that directory through a
symbolic link is refused the same way. The CLI (``nos config save FILE``) is the operator's own shell
and writes where it is told.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nos.api.rest.errors import ApiError
from nos.config import checkpoint
from nos.runtime.rundir import RunDir

SUFFIX = ".json"


def switch_files(run_dir: Path) -> frozenset[Path]:
    """The resolved paths of the run directory's own files and directories (every ``Path`` property
    of ``RunDir``), less the saved configuration, which operations do read and write."""
    run = RunDir(run_dir)
    found = {getattr(run, name) for name, value in vars(RunDir).items() if isinstance(value, property)}
    return frozenset(p.resolve() for p in found if isinstance(p, Path) and p != run.saved_config_file and p != run.path)


def inside(path: Path, directory: Path) -> bool:
    return path == directory or path.is_relative_to(directory)


@dataclass(frozen=True)
class ConfigDir:
    """The directory REST operations read and write configuration files in."""

    given: Path                 # as configured (absolute)
    root: Path                  # resolved
    reserved: frozenset[Path]   # the run directory's own files (resolved)

    @classmethod
    def of(cls, directory: Path, run_dir: Path | None) -> ConfigDir:
        given = directory.absolute()
        return cls(given, given.resolve(), switch_files(run_dir) if run_dir is not None else frozenset())

    def file(self, given: str) -> Path:
        """The resolved path of the configuration file ``given`` names, or ApiError (400/403) naming it."""
        text = given.strip()
        if not text or "\0" in text:
            raise self._refused(400, given, "is not a file name")
        candidate = Path(text)
        if ".." in candidate.parts:
            raise self._refused(400, given, "has a '..' component")
        if not candidate.name.endswith(SUFFIX) or candidate.name == SUFFIX:
            raise self._refused(400, given, f"is not a configuration file (the name must end in {SUFFIX})")
        lexical = candidate if candidate.is_absolute() else self.given / candidate
        resolved = lexical.resolve()
        if not inside(resolved, self.root):
            if inside(lexical, self.given) or inside(lexical, self.root):
                raise self._refused(403, given, f"leads through a symbolic link to {resolved}, outside the directory")
            raise self._refused(403, given, "is outside the directory")
        if any(inside(resolved, own) for own in self.reserved):
            raise self._refused(403, given, "is one of the switch's own files, not a configuration file")
        return resolved

    def _refused(self, status: int, given: str, why: str) -> ApiError:
        return ApiError(status, f"path '{given}' {why}: REST reads and writes configuration files only in "
                        f"{self.given} (the server's --config-dir, by default its run directory)", path="path")


def checkpoint_file(run_dir: Path, name: str) -> Path:
    """The checkpoint ``name``'s file, refused (403) if it or the checkpoint directory leads out of
    ``<run dir>/checkpoints`` through a symbolic link; raises CheckpointError (400) for a name that is
    not allowed."""
    path = checkpoint.path_of(run_dir, name)
    directory = run_dir.resolve() / checkpoint.directory(run_dir).relative_to(run_dir)
    resolved = path.resolve()
    if not resolved.is_relative_to(directory) or resolved == directory:
        raise ApiError(403, f"checkpoint '{name}': {path} leads through a symbolic link to {resolved}, outside "
                       f"{directory}", path="name")
    return path


__all__ = ["ConfigDir", "SUFFIX", "checkpoint_file", "inside", "switch_files"]
