"""The CONFIG_DB journal on disk: a snapshot and the changes since, each written with fsync.

``<run dir>/config_snapshot.json``: ``{"seq": N, "keys": {key: [kind, value]}}``, the whole of
CONFIG_DB as of batch N. ``<run dir>/config_journal.jsonl``: one line per batch of changes after it,
``{"seq": n, "keys": {key: [kind, value] | null}}`` (null: the key is gone), fdatasync'd within a
second. ``kind`` is ``hash`` (value: the fields), ``string`` (value: the string) or ``dump`` (value:
the base64 of Redis' DUMP, for any other type). Replaying the lines whose seq is above the
snapshot's over the snapshot gives CONFIG_DB as it was at the last line; a line cut short by a crash
is ignored, and lines the snapshot already holds are skipped, so a crash between writing a snapshot
and emptying the journal loses nothing.

These files live only while the switch runs (``nos up`` starts them from the loaded startup config,
``nos down`` removes them): the saved ``config_db.json`` stays the durable truth, as on SONiC.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nos.config.files import fsync_directory

Value = tuple[str, Any]  # ("hash", {field: value}) | ("string", text) | ("dump", base64 text)
State = dict[str, Value]
Changes = Mapping[str, Value | None]  # None: the key was deleted

SNAPSHOT_NAME = "config_snapshot.json"
JOURNAL_NAME = "config_journal.jsonl"
SYNC_EVERY_S = 1.0


def apply_changes(state: State, changes: Changes) -> None:
    """Apply one batch of changes to ``state`` (in place)."""
    for key, value in changes.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = value


def encode_batch(seq: int, changes: Changes) -> str:
    """One journal line (with its newline)."""
    keys = {key: None if value is None else [value[0], value[1]] for key, value in changes.items()}
    return json.dumps({"seq": seq, "keys": keys}, separators=(",", ":"), ensure_ascii=False) + "\n"


def _value(raw: Any) -> Value | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 2 or raw[0] not in ("hash", "string", "dump"):
        raise ValueError(f"not a journal value: {raw!r}")
    return (raw[0], raw[1])


def replay(snapshot: str | None, journal: str | None) -> tuple[State, int]:
    """The state the files describe and the last batch number in them (pure). A snapshot that does not
    parse raises ValueError (it is written atomically, so that is damage, not a crash); an unparsable
    journal line ends the replay there (a crash cut it short)."""
    state: State = {}
    seq = 0
    if snapshot:
        data = json.loads(snapshot)
        seq = int(data["seq"])
        for key, raw in data["keys"].items():
            value = _value(raw)
            if value is not None:
                state[key] = value
    for line in (journal or "").splitlines():
        try:
            batch = json.loads(line)
            number = int(batch["seq"])
            changes = {key: _value(raw) for key, raw in batch["keys"].items()}
        except (ValueError, KeyError, TypeError):
            break
        if number > seq:
            apply_changes(state, changes)
            seq = number
    return state, seq


class JournalFiles:
    """The snapshot and journal files of one run directory. A batch is written at once (in the page
    cache, it survives Redis and any other process dying); it is fdatasync'd at most every
    ``SYNC_EVERY_S`` (``append``, ``sync``), against a crash of the host: an fdatasync per batch cost
    ~80 us of CPU and ~0.5 ms here, per REST PATCH, for a file no boot reads."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fd: int | None = None
        self._synced = 0.0
        self._unsynced = False

    @property
    def snapshot_path(self) -> Path:
        return self.directory / SNAPSHOT_NAME

    @property
    def journal_path(self) -> Path:
        return self.directory / JOURNAL_NAME

    def write_snapshot(self, state: State, seq: int) -> None:
        """Replace the snapshot (written aside, fsync'd, renamed), then empty the journal."""
        tmp = self.snapshot_path.with_name(f".{SNAPSHOT_NAME}.tmp")
        keys = {key: [value[0], value[1]] for key, value in state.items()}
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"seq": seq, "keys": keys}, out, separators=(",", ":"), ensure_ascii=False)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.snapshot_path)
        fsync_directory(self.directory)
        self.close()
        fd = os.open(self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def append(self, seq: int, changes: Changes) -> None:
        """Add one batch to the journal (written when this returns; see the class docstring)."""
        if self._fd is None:
            self._fd = os.open(self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.write(self._fd, encode_batch(seq, changes).encode("utf-8"))
        self._unsynced = True
        if time.monotonic() - self._synced >= SYNC_EVERY_S:
            self.sync()

    def sync(self) -> None:
        """fdatasync what was appended since the last one."""
        if self._fd is not None and self._unsynced:
            os.fdatasync(self._fd)
            self._unsynced = False
            self._synced = time.monotonic()

    def close(self) -> None:
        if self._fd is not None:
            self.sync()
            os.close(self._fd)
            self._fd = None

    def load(self) -> tuple[State, int]:
        """What the files hold (an empty state when there are none)."""
        return replay(_read(self.snapshot_path), _read(self.journal_path))

    def remove(self) -> None:
        self.close()
        for path in (self.snapshot_path, self.journal_path):
            path.unlink(missing_ok=True)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
