"""``nos user add|del|list`` and ``nos token add|del|list``: who may use the REST and gNMI APIs.

They edit ``<run dir>/credentials.json`` (``nos.api.auth``: hashes only, mode 0600) whether or not the
switch is running; the servers re-read the file when it changes, and a server that has required
credentials goes on requiring them when the last user or token is deleted (the command says so). A
password comes from a prompt with
confirmation, or from the first line of stdin with ``--password-stdin``; a token is printed once, when
it is made. Listings show names and roles, never secrets.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from tabulate import tabulate

from nos.api import auth
from nos.cli.common import fail, json_option, print_json, run_dir_option
from nos.runtime.rundir import RunDir

ROLE = click.Choice(auth.ROLES)
REFUSED = 2


def credentials_file(run_dir: str | None) -> Path:
    return RunDir.resolve(run_dir).path / auth.FILE_NAME


def _load(path: Path) -> auth.Credentials:
    try:
        return auth.load(path)
    except auth.AuthError as exc:
        fail(str(exc))


def listing(entries: dict[str, dict[str, str]], as_json: bool, title: str) -> None:
    rows = [[name, entry["role"]] for name, entry in sorted(entries.items())]
    if as_json:
        print_json([{"name": name, "role": role} for name, role in rows])
    elif rows:
        click.echo(tabulate(rows, [title, "Role"], tablefmt="simple"))
    else:
        click.echo(f"No {title.lower()}s.")


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=True))


def _warn_if_none_left(path: Path) -> None:
    if _load(path).empty:
        click.echo("Note: no user or token is left. REST and gNMI servers that already required credentials "
                   "refuse every request until one is added (or the switch restarts, on loopback only).", err=True)


@click.group()
def user() -> None:
    """Manage the users of the REST and gNMI APIs (password login)."""


@user.command("add")
@click.argument("name")
@click.option("--role", required=True, type=ROLE, help="read-only: reads and subscriptions; admin: also writes")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of stdin")
@run_dir_option
def add_user(name: str, role: str, password_stdin: bool, run_dir: str | None) -> None:
    """Add a user (or set an existing user's role and password)."""
    path = credentials_file(run_dir)
    existed = name in _load(path).users
    try:
        auth.add_user(path, name, role, _read_password(password_stdin))
    except auth.AuthError as exc:
        fail(str(exc), REFUSED)
    click.echo(f"User {name} {'updated' if existed else 'added'} ({role}) in {path}.")


@user.command("del")
@click.argument("name")
@run_dir_option
def del_user(name: str, run_dir: str | None) -> None:
    """Remove a user."""
    try:
        auth.remove(credentials_file(run_dir), "user", name)
    except auth.AuthError as exc:
        fail(str(exc), REFUSED)
    click.echo(f"User {name} removed.")
    _warn_if_none_left(credentials_file(run_dir))


@user.command("list")
@json_option
@run_dir_option
def list_users(as_json: bool, run_dir: str | None) -> None:
    """List users and their roles."""
    listing(_load(credentials_file(run_dir)).users, as_json, "User")


@click.group()
def token() -> None:
    """Manage API tokens (bearer tokens for REST, password of their name for gNMI)."""


@token.command("add")
@click.argument("name")
@click.option("--role", required=True, type=ROLE, help="read-only: reads and subscriptions; admin: also writes")
@run_dir_option
def add_token(name: str, role: str, run_dir: str | None) -> None:
    """Create a token (replacing one of that name) and print it once."""
    path = credentials_file(run_dir)
    try:
        secret = auth.add_token(path, name, role)
    except auth.AuthError as exc:
        fail(str(exc), REFUSED)
    click.echo(secret)
    click.echo(f"Token {name} ({role}) saved in {path}. Copy it now: it will not be shown again.", err=True)


@token.command("del")
@click.argument("name")
@run_dir_option
def del_token(name: str, run_dir: str | None) -> None:
    """Remove a token."""
    try:
        auth.remove(credentials_file(run_dir), "token", name)
    except auth.AuthError as exc:
        fail(str(exc), REFUSED)
    click.echo(f"Token {name} removed.")
    _warn_if_none_left(credentials_file(run_dir))


@token.command("list")
@json_option
@run_dir_option
def list_tokens(as_json: bool, run_dir: str | None) -> None:
    """List token names and their roles."""
    listing(_load(credentials_file(run_dir)).tokens, as_json, "Token")
