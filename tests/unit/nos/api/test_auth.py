"""Credentials: hashed at rest, roles, the loopback rule, the file re-read when it changes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from nos.api import auth
from nos.api.tls import TlsError, TlsFiles


def test_passwords_are_stored_hashed_and_verified() -> None:
    stored = auth.hash_password("correct horse")
    assert "correct horse" not in stored and stored.startswith("scrypt$")
    assert auth.verify_password("correct horse", stored)
    assert not auth.verify_password("wrong horse", stored)
    assert not auth.verify_password("correct horse", "md5$abc")


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("127.1.2.3", True), ("127.255.255.254", True), ("::1", True),
    ("[::1]", True), ("::ffff:127.0.0.1", True), ("[::ffff:127.0.0.2]", True), ("localhost", True),
    ("LocalHost", True), ("0.0.0.0", False), ("::", False), ("[::]", False), ("", False), ("::ffff:10.0.0.1", False),
    ("::ffff:0.0.0.0", False), ("126.255.255.255", False), ("128.0.0.1", False), ("10.0.0.1", False),
    ("127.1", False), ("switch.lab", False), ("localhost.evil.example", False)])
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert auth.is_loopback(host) is loopback


def test_localhost_counts_only_if_it_resolves_to_loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def resolves(*addresses: str) -> None:
        infos = [(0, 0, 0, "", (a, 0)) for a in addresses]
        monkeypatch.setattr(auth.socket, "getaddrinfo", lambda *_a, **_k: infos)

    resolves("127.0.0.1", "::1")
    assert auth.is_loopback("localhost")
    resolves("127.0.0.1", "192.0.2.7")  # an /etc/hosts that also names a real interface
    assert not auth.is_loopback("localhost")
    resolves()
    assert not auth.is_loopback("localhost")


def test_a_non_loopback_listener_needs_credentials(tmp_path: Path) -> None:
    checker = auth.Authenticator(tmp_path / auth.FILE_NAME)
    checker.check_listener("127.0.0.1")
    with pytest.raises(auth.ListenerRefused, match="0.0.0.0 without credentials"):
        checker.check_listener("0.0.0.0")
    auth.add_user(tmp_path / auth.FILE_NAME, "ops", auth.READ_ONLY, "s3cret-pass")
    checker.check_listener("0.0.0.0")
    assert checker.required


def test_users_and_tokens_with_roles(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    auth.add_user(path, "admin", auth.ADMIN, "admin-pass")
    token = auth.add_token(path, "grafana", auth.READ_ONLY)
    text = path.read_text()
    assert "admin-pass" not in text and token not in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    checker = auth.Authenticator(path)
    assert checker.password("admin", "admin-pass") == auth.Principal("admin", auth.ADMIN)
    assert checker.password("admin", "admin-pass").can_write  # type: ignore[union-attr]
    assert checker.password("admin", "nope") is None
    assert checker.password("nobody", "admin-pass") is None
    assert checker.token(token) == auth.Principal("grafana", auth.READ_ONLY)
    assert checker.password("grafana", token) == auth.Principal("grafana", auth.READ_ONLY)  # gNMI metadata form
    assert checker.token("nos_forged") is None


def test_a_changed_file_is_picked_up(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    auth.add_user(path, "a", auth.ADMIN, "password-1")
    token = auth.add_token(path, "ci", auth.ADMIN)
    checker = auth.Authenticator(path)
    assert checker.password("a", "password-1") is not None and checker.token(token) is not None
    auth.remove(path, "token", "ci")
    assert checker.token(token) is None and checker.password("ci", token) is None  # a deleted token is gone
    auth.remove(path, "user", "a")
    assert checker.password("a", "password-1") is None  # the cached verification went with the file


def test_a_changed_password_is_seen_even_with_the_old_size_and_mtime(tmp_path: Path) -> None:
    """A new version of the file of the same size and with the previous one's mtime (``cp -p``,
    ``rsync -t``, or two writes within one coarse clock tick) is still told apart."""
    path = tmp_path / auth.FILE_NAME
    versions = [auth.Credentials({"a": {"role": auth.ADMIN, "password": auth.hash_password(pw)}}, {})
                for pw in ("password-1", "password-2")]
    auth.save(path, versions[0])
    checker = auth.Authenticator(path)
    assert checker.password("a", "password-1") is not None
    before = path.stat()
    auth.save(path, versions[1])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert checker.password("a", "password-1") is None
    assert checker.password("a", "password-2") is not None


def test_credentials_stay_required_once_seen_even_when_all_are_deleted(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    auth.add_user(path, "a", auth.ADMIN, "password-1")
    checker = auth.Authenticator(path)
    assert checker.required
    auth.remove(path, "user", "a")
    assert checker.required and checker.password("a", "password-1") is None
    path.unlink()
    assert checker.required
    path.write_text('{"users": {}, "tokens": {}}')
    assert checker.required


def test_the_first_credential_added_at_run_time_makes_them_required_for_good(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    checker = auth.Authenticator(path)
    assert not checker.required  # a loopback lab that never had credentials runs open
    token = auth.add_token(path, "ci", auth.READ_ONLY)
    assert checker.required and checker.token(token) == auth.Principal("ci", auth.READ_ONLY)
    auth.remove(path, "token", "ci")
    assert checker.required and checker.token(token) is None


def test_a_listener_beyond_loopback_requires_credentials_for_good(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    auth.add_user(path, "a", auth.READ_ONLY, "password-1")
    checker = auth.Authenticator(path)
    checker.check_listener("0.0.0.0")
    path.unlink()
    assert checker.required
    with pytest.raises(auth.ListenerRefused):
        auth.Authenticator(path).check_listener("0.0.0.0")  # and a new one, with nothing, does not start


@pytest.mark.parametrize("broken", ["{not json", '{"users": []}', '{"users": {"a": {"role": "root"}}}'])
def test_a_file_broken_at_run_time_refuses_until_it_is_fixed(tmp_path: Path, broken: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / auth.FILE_NAME
    checker = auth.Authenticator(path)
    assert not checker.required
    path.write_text(broken)
    for _ in range(3):
        with pytest.raises(auth.AuthError):
            checker.required  # noqa: B018 - the property reads the file
        with pytest.raises(auth.AuthError):
            checker.token("nos_x")
    assert [r.message for r in caplog.records].count(  # logged once, not once per request
        next(r.message for r in caplog.records if "unusable" in r.message)) == 1
    auth.save(path, auth.Credentials({}, {}))  # fixed, but empty: still required (it was broken: fail closed)
    assert checker.required
    auth.add_user(path, "a", auth.ADMIN, "password-1")
    assert checker.password("a", "password-1") == auth.Principal("a", auth.ADMIN)


def test_a_file_that_cannot_be_read_at_start_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / auth.FILE_NAME
    path.write_text("{not json")
    with pytest.raises(auth.AuthError, match="invalid JSON"):
        auth.Authenticator(path)


@pytest.mark.parametrize(("document", "says"), [
    ([], "top level"),
    ({"users": []}, "'users' must be an object"),
    ({"users": {"x": {"role": "root", "password": "h"}}}, "users 'x' needs 'role'"),
    ({"tokens": {"t": {"role": "admin"}}}, "tokens 't' needs"),
])
def test_a_bad_file_is_named(tmp_path: Path, document: object, says: str) -> None:
    path = tmp_path / auth.FILE_NAME
    path.write_text(json.dumps(document))
    with pytest.raises(auth.AuthError, match=says):
        auth.load(path)


def test_bad_requests_for_users() -> None:
    with pytest.raises(auth.AuthError, match="role 'root'"):
        auth.add_user(Path("/nonexistent/x.json"), "u", "root", "long-enough")
    with pytest.raises(auth.AuthError, match="at least 8"):
        auth.add_user(Path("/nonexistent/x.json"), "u", auth.ADMIN, "short")


def test_tls_flags(tmp_path: Path) -> None:
    assert TlsFiles.from_flags(None, None, None) is None
    with pytest.raises(TlsError, match="both --tls-cert and --tls-key"):
        TlsFiles.from_flags("c.pem", None, None)
    with pytest.raises(TlsError, match="--tls-ca .* needs"):
        TlsFiles.from_flags(None, None, "ca.pem")
    with pytest.raises(TlsError, match="--tls-cert .*: no such file"):
        TlsFiles.from_flags(str(tmp_path / "c.pem"), str(tmp_path / "k.pem"), None)
    (tmp_path / "c.pem").write_text("c")
    (tmp_path / "k.pem").write_text("k")
    files = TlsFiles.from_flags(str(tmp_path / "c.pem"), str(tmp_path / "k.pem"), None)
    assert files is not None and not files.mutual
    assert files.uvicorn_kwargs() == {"ssl_certfile": str(tmp_path / "c.pem"), "ssl_keyfile": str(tmp_path / "k.pem")}
