"""The errors of configuration handling: a file that cannot be used, a configuration that is refused.

:class:`ConfigError` (one problem found by validation, a record, not an exception) is defined with the
schema it is about and re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from nos.db.baddata import BadKey
from nos.schema.config import KEY_SEPARATOR, ConfigError

__all__ = ["ConfigError", "ConfigFileError", "ConfigValidationError", "UnreadableConfig"]


class ConfigFileError(Exception):
    """Raised when a config_db.json file cannot be read or written, is not valid JSON, or does not have
    the config_db.json shape (top level not an object, a table or row that is not an object, a field
    value that is an object or null). The message names the file and, when known, table, key and field.
    """

    def __init__(
        self,
        path: str,
        reason: str,
        *,
        table: str | None = None,
        key: str | None = None,
        field: str | None = None,
    ) -> None:
        self.path, self.reason = path, reason
        self.table, self.key, self.field = table, key, field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.table is not None:
            where = self.table if self.key is None else f"{self.table}{KEY_SEPARATOR}{self.key}"
            where += f": field '{self.field}'" if self.field is not None else ""
            where += ": "
        return f"{self.path}: {where}{self.reason}"


class ConfigValidationError(Exception):
    """Raised by callers that refuse a configuration (config load/reload, API writes) because
    ``validate_config`` reported errors; ``errors`` carries all of them."""

    SHOWN = 10

    def __init__(self, errors: Sequence[ConfigError], source: str | None = None) -> None:
        self.errors = list(errors)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        head = f"{self.source}: " if self.source else ""
        lines = [f"{head}{len(self.errors)} configuration error(s)"]
        lines += [f"  {error}" for error in self.errors[: self.SHOWN]]
        if len(self.errors) > self.SHOWN:
            lines.append(f"  ... and {len(self.errors) - self.SHOWN} more")
        return "\n".join(lines)


class UnreadableConfig(Exception):
    """Raised by ``config save`` and checkpoint creation when CONFIG_DB holds keys that are not rows (a
    string where a row's hash is expected): a file written without them would lose those rows at the
    next boot or rollback without a word. ``unreadable`` names each key and why; nothing is written."""

    SHOWN = 10

    def __init__(self, unreadable: Sequence[BadKey], what: str = "config save") -> None:
        self.unreadable = list(unreadable)
        self.what = what
        super().__init__(str(self))

    def __str__(self) -> str:
        count = len(self.unreadable)
        lines = [f"{self.what}: nothing written: CONFIG_DB holds {count} key(s) that are not rows, "
                 "which the file would silently lose:"]
        lines += [f"  {bad.reason}" for bad in self.unreadable[: self.SHOWN]]
        if count > self.SHOWN:
            lines.append(f"  ... and {count - self.SHOWN} more")
        first = self.unreadable[0]
        lines.append(f"Write the row again (nos config load, REST PUT, gNMI Set replace the key) or delete "
                     f"the key (nos redis-cli -n 4 del '{first.table}{KEY_SEPARATOR}{first.key}'), then retry.")
        return "\n".join(lines)
