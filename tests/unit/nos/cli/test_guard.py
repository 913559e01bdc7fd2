"""The ``nos`` command's last line of defence: an unhandled error is one line and exit status 1;
``NOS_DEBUG=1`` adds the traceback; click's own errors and explicit exits are left alone."""

from __future__ import annotations

import errno

import click
import pytest
from click.testing import CliRunner

from nos.cli.guard import GuardedGroup, describe
from nos.cli.main import cli
from nos.db.errors import DbError

ERRORS: dict[str, BaseException] = {
    "full": OSError(errno.ENOSPC, "No space left on device", "/mnt/tiny/config_db.json"),
    "readonly": OSError(errno.EROFS, "Read-only file system", "/ro/config_db.json"),
    "denied": PermissionError(errno.EACCES, "Permission denied", "/etc/shadow"),
    "db": DbError("Connection refused"),
    "bug": KeyError("SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID"),
}


def group() -> click.Group:
    @click.group(cls=GuardedGroup)
    def top() -> None:
        """A group as ``nos`` is."""

    @top.group()
    def sub() -> None:
        """A nested group, as ``nos config``."""

    @sub.command()
    @click.argument("kind")
    def fail(kind: str) -> None:
        raise ERRORS[kind]

    @top.command()
    def leave() -> None:
        raise SystemExit(3)

    return top


@pytest.mark.parametrize(("kind", "line"), [
    ("full", "Error: /mnt/tiny/config_db.json: no space left on the device\n"),
    ("readonly", "Error: /ro/config_db.json: the file system is read-only\n"),
    ("denied", "Error: /etc/shadow: permission denied\n"),
    ("db", "Error: the switch's database did not answer: Connection refused (is the switch running? see "
           "'nos status')\n"),
    ("bug", "Error: unexpected KeyError: 'SAI_SWITCH_ATTR_DEFAULT_VIRTUAL_ROUTER_ID' (set NOS_DEBUG=1 for the "
            "traceback)\n"),
])
def test_an_unhandled_error_is_one_line_and_status_1(kind: str, line: str) -> None:
    result = CliRunner().invoke(group(), ["sub", "fail", kind])
    assert (result.exit_code, result.output) == (1, line)
    assert isinstance(result.exception, SystemExit)


def test_nos_debug_adds_the_traceback() -> None:
    result = CliRunner(env={"NOS_DEBUG": "1"}).invoke(group(), ["sub", "fail", "bug"])
    assert result.exit_code == 1 and result.output.startswith("Error: unexpected KeyError")
    assert "Traceback (most recent call last)" in result.output and "raise ERRORS[kind]" in result.output


def test_clicks_own_errors_and_exits_are_left_alone() -> None:
    assert CliRunner().invoke(group(), ["leave"]).exit_code == 3
    usage = CliRunner().invoke(group(), ["sub", "fail"])
    assert usage.exit_code == 2 and "Missing argument 'KIND'" in usage.output


def test_the_nos_command_is_guarded() -> None:
    assert isinstance(cli, GuardedGroup)


def test_an_os_error_without_a_path_still_says_what() -> None:
    found = describe(OSError(errno.EMFILE, "Too many open files"))
    assert found == "too many open files ([Errno 24] Too many open files)"
