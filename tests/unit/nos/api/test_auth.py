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


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True),
                                                ("[::1]", True), ("localhost", True), ("0.0.0.0", False),
                                                ("::", False), ("10.0.0.1", False), ("switch.lab", False)])
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert auth.is_loopback(host) is loopback


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
    checker = auth.Authenticator(path)
    assert checker.password("a", "password-1") is not None
    auth.remove(path, "user", "a")
    assert checker.password("a", "password-1") is None  # the cached verification went with the file
    assert not checker.required


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
