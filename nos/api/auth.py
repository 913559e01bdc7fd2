"""Who may use the management APIs: users with passwords, API tokens, and their roles.

The credentials file (default ``<run dir>/credentials.json``, mode 0600) holds only hashes::

    {"users":  {"admin": {"role": "admin", "password": "scrypt$16384$8$1$<salt>$<hash>"}},
     "tokens": {"ci":    {"role": "read-only", "sha256": "<hex digest of the token>"}}}

Passwords are hashed with scrypt (salted, stdlib); tokens are 256-bit random strings, so their
SHA-256 is enough. Roles: ``read-only`` (reads, subscriptions) and ``admin`` (also writes and
operations). REST takes HTTP Basic or ``Authorization: Bearer <token>``; gNMI takes ``username`` /
``password`` metadata (a token may be given as the password of its name, or as a bearer token).

A listener on a loopback address may run without credentials (the lab default, as sonic-gnmi's
``--noTLS --bind_address 127.0.0.1``); any other listener refuses to start unless the file holds at
least one user or token. When credentials exist they are always enforced, loopback included.

Verifying scrypt costs tens of milliseconds, so a verified (user, password digest) pair is cached in
memory until the file changes; no secret is ever logged or kept in clear.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

READ_ONLY = "read-only"
ADMIN = "admin"
ROLES = (READ_ONLY, ADMIN)
FILE_NAME = "credentials.json"

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


class AuthError(ValueError):
    """A credentials file or a change to it that cannot be used (message names what is wrong)."""


class ListenerRefused(RuntimeError):
    """A non-loopback listener was asked for without any credentials configured."""


@dataclass(frozen=True)
class Principal:
    """An authenticated caller (``anonymous`` when the listener needs no credentials)."""

    name: str
    role: str

    @property
    def can_write(self) -> bool:
        return self.role == ADMIN


ANONYMOUS_ADMIN = Principal("anonymous", ADMIN)


# ---- hashing (pure) -------------------------------------------------------------------------------

def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "nos_" + secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether a listen address only accepts local connections ('localhost', 127/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# ---- the credentials file -------------------------------------------------------------------------

@dataclass(frozen=True)
class Credentials:
    users: dict[str, dict[str, str]]
    tokens: dict[str, dict[str, str]]

    @property
    def empty(self) -> bool:
        return not self.users and not self.tokens

    @staticmethod
    def parse(document: object, source: str) -> Credentials:
        if not isinstance(document, dict):
            raise AuthError(f"{source}: the top level must be an object with 'users' and 'tokens'")
        users, tokens = document.get("users", {}), document.get("tokens", {})
        for kind, entries, secret in (("users", users, "password"), ("tokens", tokens, "sha256")):
            if not isinstance(entries, dict):
                raise AuthError(f"{source}: '{kind}' must be an object of names")
            for name, entry in entries.items():
                usable = isinstance(entry, dict) and entry.get("role") in ROLES
                if not usable or not isinstance(entry.get(secret), str):
                    raise AuthError(f"{source}: {kind} '{name}' needs 'role' ({' or '.join(ROLES)}) and '{secret}'")
        return Credentials(dict(users), dict(tokens))

    def as_document(self) -> dict[str, object]:
        return {"users": self.users, "tokens": self.tokens}


def load(path: Path) -> Credentials:
    """The credentials in ``path`` (none if the file does not exist)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Credentials({}, {})
    except OSError as exc:
        raise AuthError(f"{path}: cannot read: {exc}") from exc
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AuthError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    return Credentials.parse(document, str(path))


def save(path: Path, credentials: Credentials) -> None:
    """Write the file atomically, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(credentials.as_document(), stream, indent=2, sort_keys=True)
            stream.write("\n")
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise AuthError(f"{path}: cannot write: {exc}") from exc


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise AuthError(f"role {role!r}: use {' or '.join(ROLES)}")


def add_user(path: Path, name: str, role: str, password: str) -> None:
    _check_role(role)
    if not name or ":" in name:
        raise AuthError(f"user name {name!r}: must be non-empty and without ':'")
    if len(password) < 8:
        raise AuthError("password: at least 8 characters")
    creds = load(path)
    save(path, Credentials({**creds.users, name: {"role": role, "password": hash_password(password)}}, creds.tokens))


def add_token(path: Path, name: str, role: str) -> str:
    """Create (or replace) token ``name``; returns the token, which is shown only this once."""
    _check_role(role)
    if not name:
        raise AuthError("token name: must be non-empty")
    token = new_token()
    creds = load(path)
    save(path, Credentials(creds.users, {**creds.tokens, name: {"role": role, "sha256": token_digest(token)}}))
    return token


def remove(path: Path, kind: str, name: str) -> None:
    creds = load(path)
    entries = creds.users if kind == "user" else creds.tokens
    if name not in entries:
        raise AuthError(f"no {kind} {name!r}")
    rest = {k: v for k, v in entries.items() if k != name}
    save(path, Credentials(rest, creds.tokens) if kind == "user" else Credentials(creds.users, rest))


# ---- the check a server makes ---------------------------------------------------------------------

class Authenticator:
    """Checks callers against the credentials file, re-reading it when it changes."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._creds = Credentials({}, {})
        self._verified: dict[tuple[str, str], Principal] = {}
        self._reload()

    def _reload(self) -> None:
        if self.path is None:
            return
        try:
            stat = self.path.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            self._creds = load(self.path) if stamp is not None else Credentials({}, {})
            self._verified.clear()
            self._stamp = stamp

    @property
    def required(self) -> bool:
        """Whether callers must authenticate (there are credentials)."""
        self._reload()
        return not self._creds.empty

    def check_listener(self, host: str) -> None:
        """Refuse a non-loopback listener when there is nothing to authenticate against."""
        if not is_loopback(host) and not self.required:
            where = self.path or f"<run dir>/{FILE_NAME}"
            raise ListenerRefused(
                f"refusing to listen on {host} without credentials: a non-loopback listener needs at least "
                f"one user or token in {where} (create one with 'nos user add' or 'nos token add')")

    def password(self, name: str, password: str) -> Principal | None:
        """A user's password, or a token given as the password of its name."""
        self._reload()
        key = (name, token_digest(password))
        found = self._verified.get(key)
        if found is not None:
            return found
        user = self._creds.users.get(name)
        if user is not None and verify_password(password, user["password"]):
            found = Principal(name, user["role"])
        else:
            token = self._creds.tokens.get(name)
            if token is not None and hmac.compare_digest(token["sha256"], token_digest(password)):
                found = Principal(name, token["role"])
        if found is not None:
            self._verified[key] = found
        return found

    def token(self, token: str) -> Principal | None:
        """A bearer token."""
        self._reload()
        digest = token_digest(token)
        for name, entry in self._creds.tokens.items():
            if hmac.compare_digest(entry["sha256"], digest):
                return Principal(name, entry["role"])
        return None


__all__ = ["ADMIN", "ANONYMOUS_ADMIN", "AuthError", "Authenticator", "Credentials", "FILE_NAME", "ListenerRefused",
           "Principal", "READ_ONLY", "ROLES", "add_token", "add_user", "hash_password", "is_loopback", "load",
           "new_token", "remove", "save", "token_digest", "verify_password"]
