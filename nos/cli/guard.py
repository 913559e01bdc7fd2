"""The last line of defence of every ``nos`` command: an error no command handled is one line on
stderr (``Error: ...``) and exit status 1, never a traceback.

Commands report the errors they expect themselves (a refused configuration, a switch that is not
running). What reaches here is told as plainly as it can be: an OS error by its path and its cause in
words (a full disk, a read-only file system, a missing directory, no permission), a database that
does not answer as such, anything else by its type and message. ``NOS_DEBUG=1`` in the environment
adds the traceback (after the line), for a bug report.
"""

from __future__ import annotations

import errno
import os
import traceback
from typing import Any

import click

DEBUG_ENV = "NOS_DEBUG"

_OS_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file is larger than this process may write",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EISDIR: "it is a directory",
    errno.EIO: "input/output error (the device failed)",
    errno.EMFILE: "too many open files",
}


def os_reason(exc: OSError) -> str:
    """An OS error's cause in words (``no space left on the device``), else the system's own text."""
    return _OS_REASONS.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()


def describe(exc: BaseException) -> str:
    """One line saying what went wrong (see the module docstring)."""
    from nos.config.errors import ConfigFileError, ConfigValidationError  # here: a command's own imports
    from nos.db.errors import DbError  # only are paid at its start

    if isinstance(exc, OSError):
        return f"{exc.filename}: {os_reason(exc)}" if exc.filename is not None else f"{os_reason(exc)} ({exc})"
    if isinstance(exc, DbError):
        return f"the switch's database did not answer: {exc} (is the switch running? see 'nos status')"
    if isinstance(exc, ConfigFileError | ConfigValidationError):
        return str(exc)
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"unexpected {type(exc).__name__}{': ' + text if text else ''} (set {DEBUG_ENV}=1 for the traceback)"


class GuardedGroup(click.Group):
    """A click group whose commands never end in a traceback (``describe``; ``NOS_DEBUG=1`` adds it)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise  # click's own: usage errors, --help, Ctrl-C, an explicit exit status
        except Exception as exc:  # noqa: BLE001 - the one place where everything is caught, by design
            click.echo(f"Error: {describe(exc)}", err=True)
            if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
                click.echo("".join(traceback.format_exception(exc)), err=True, nl=False)
            ctx.exit(1)


__all__ = ["DEBUG_ENV", "GuardedGroup", "describe", "os_reason"]
