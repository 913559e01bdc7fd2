"""``nos user`` and ``nos token``: the credentials file in the run directory (no switch needed)."""

from __future__ import annotations

import json
import stat

from click.testing import CliRunner

from nos.api import auth
from nos.cli.main import cli


def run(run_dir, *args, code=0, stdin=None):
    result = CliRunner().invoke(cli, [*args, "--run-dir", str(run_dir)], input=stdin)
    assert result.exit_code == code, (result.output, result.exception)
    return result


def test_user_add_with_prompt_list_and_del(tmp_path):
    result = run(tmp_path, "user", "add", "alice", "--role", "admin", stdin="s3cret-pass\ns3cret-pass\n")
    assert "User alice added (admin)" in result.output
    run(tmp_path, "user", "add", "bob", "--role", "read-only", "--password-stdin", stdin="another-pass\n")
    path = tmp_path / auth.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert "s3cret-pass" not in path.read_text() and stored["users"]["bob"]["role"] == "read-only"
    checker = auth.Authenticator(path)
    assert checker.password("alice", "s3cret-pass") == auth.Principal("alice", "admin")
    assert checker.password("bob", "another-pass") == auth.Principal("bob", "read-only")

    listed = run(tmp_path, "user", "list").output
    assert listed.splitlines()[2:] == ["alice   admin", "bob     read-only"]
    assert "pass" not in listed
    assert json.loads(run(tmp_path, "user", "list", "--json").output) == [
        {"name": "alice", "role": "admin"}, {"name": "bob", "role": "read-only"}]
    assert "User bob removed." in run(tmp_path, "user", "del", "bob").output
    assert "no user 'bob'" in run(tmp_path, "user", "del", "bob", code=2).output


def test_user_refusals(tmp_path):
    assert "at least 8 characters" in run(tmp_path, "user", "add", "a", "--role", "admin", "--password-stdin",
                                          stdin="short\n", code=2).output
    mismatch = run(tmp_path, "user", "add", "a", "--role", "admin", stdin="password-1\npassword-2\n", code=1)
    assert "do not match" in mismatch.output
    assert "'superuser' is not one of" in run(tmp_path, "user", "add", "a", "--role", "superuser", code=2).output
    assert not (tmp_path / auth.FILE_NAME).exists()


def test_token_is_printed_once_and_works(tmp_path):
    result = run(tmp_path, "token", "add", "ci", "--role", "read-only")
    token = result.stdout.strip()
    assert token.startswith("nos_") and "will not be shown again" in result.stderr
    assert auth.Authenticator(tmp_path / auth.FILE_NAME).token(token) == auth.Principal("ci", "read-only")
    assert token not in run(tmp_path, "token", "list").output
    assert run(tmp_path, "token", "list").output.splitlines()[2].split() == ["ci", "read-only"]
    run(tmp_path, "token", "del", "ci")
    assert auth.Authenticator(tmp_path / auth.FILE_NAME).token(token) is None
    assert run(tmp_path, "token", "list").output == "No tokens.\n"


def test_deleting_the_last_credential_says_the_servers_stay_closed(tmp_path):
    run(tmp_path, "user", "add", "a", "--role", "admin", "--password-stdin", stdin="password-1\n")
    run(tmp_path, "token", "add", "ci", "--role", "read-only")
    assert "no user or token is left" not in run(tmp_path, "user", "del", "a").stderr
    assert "no user or token is left" in run(tmp_path, "token", "del", "ci").stderr
