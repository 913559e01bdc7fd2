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

Enforcement fails closed and never relaxes while a server runs (``Authenticator.required``): it is
switched on at start by a non-loopback listener or by credentials in the file, and at run time by the
first credential that appears; from then on a caller without valid credentials is refused, even after
every user and token is deleted (restart the server to run open again). The file is re-read when it
changes (a changed password, a deleted token: the next request sees it). A file that cannot be read
or parsed at run time refuses every request (503 / UNAVAILABLE) until it is fixed: the last good
credentials are not kept, since the change that broke it may have been a revocation.

Loopback addresses (``is_loopback``): 127.0.0.0/8 (127.0.0.2 included: Linux routes the whole block
to ``lo``), ``::1`` (also written ``[::1]``), their IPv4-mapped form ``::ffff:127.x.y.z``, and the name
``localhost`` when everything it resolves to is one of those. ``0.0.0.0``, ``::``, an empty host and
every other address or name listen beyond the host.

Verifying scrypt costs tens of milliseconds, so a verified (user, password digest) pair is cached in
memory until the file changes; no secret is ever logged or kept in clear.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

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


def is_loopback_address(host: str) -> bool:
    """Whether ``host`` is a literal loopback address: 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def is_loopback(host: str) -> bool:
    """Whether a listen address only accepts connections from this host (see the module docstring);
    ``localhost`` is resolved, and counts only if every address it names is loopback."""
    if host.lower() == "localhost":
        try:
            found = {str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
        except OSError:
            return False
        return bool(found) and all(is_loopback_address(address) for address in found)
    return is_loopback_address(host)


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

Stamp = tuple[int, int, int, int]  # inode, size, mtime and ctime (ns) of the credentials file
_UNREAD: Stamp = (-1, -1, -1, -1)
_UNSTATABLE: Stamp = (-2, -2, -2, -2)  # stat itself failed (not: no file)


def file_stamp(path: Path) -> Stamp | None:
    """What tells one version of the file from the next (None: no file). ``save`` replaces the file, so
    two successive versions differ in inode even when written within one clock tick at the same size
    (a changed password); ``chmod`` changes ctime."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AuthError(f"{path}: cannot read: {exc}") from exc
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


@dataclass(frozen=True)
class _Loaded:
    """One version of the file as a server uses it: its credentials (empty while ``broken``), the
    verifications made against them, and the error that makes it unusable (None: usable). Replaced
    whole on a change, so a verification finished after the change lands in the old one's cache."""

    stamp: Stamp | None
    creds: Credentials
    broken: AuthError | None = None
    verified: dict[tuple[str, str], Principal] = field(default_factory=dict)


class Authenticator:
    """Checks callers against the credentials file, re-reading it when it changes.

    ``required`` starts true when the file holds credentials, becomes true for good when a listener
    beyond loopback is checked (``check_listener``) or when a credential or an unusable file is first
    seen at run time, and never turns false again (see the module docstring). Thread-safe: every
    request works on the one ``_Loaded`` it read."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._required = False
        self._loaded = _Loaded(_UNREAD, Credentials({}, {}))
        self._current()

    def _current(self) -> _Loaded:
        """The file's current version (re-read if it changed); raises AuthError while it cannot be used."""
        loaded = self._loaded
        if self.path is not None:
            try:
                stamp = file_stamp(self.path)
            except AuthError as exc:
                loaded = self._use(_Loaded(_UNSTATABLE, Credentials({}, {}), exc))
            else:
                if stamp != loaded.stamp:
                    loaded = self._use(self._read(self.path, stamp))
        if loaded.broken is not None:
            raise loaded.broken
        return loaded

    @staticmethod
    def _read(path: Path, stamp: Stamp | None) -> _Loaded:
        try:
            return _Loaded(stamp, load(path) if stamp is not None else Credentials({}, {}))
        except AuthError as exc:
            return _Loaded(stamp, Credentials({}, {}), exc)

    def _use(self, loaded: _Loaded) -> _Loaded:
        """Make ``loaded`` the current version, logging what it changes for the listener."""
        before, self._loaded = self._loaded, loaded
        if loaded.broken is not None:
            if str(loaded.broken) != str(before.broken):  # once per problem, not once per request
                log.error("auth.credentials.unusable error=%s: every request is refused until the file is fixed",
                          loaded.broken)
            self._required = True
        elif not loaded.creds.empty and not self._required:
            self._required = True
            log.info("auth.required path=%s: it holds credentials; callers need them for the life of this server",
                     self.path)
        elif loaded.creds.empty and self._required:
            log.warning("auth.credentials.none path=%s: every request is refused until a user or token is added",
                        self.path)
        return loaded

    @property
    def required(self) -> bool:
        """Whether callers must authenticate; raises AuthError while the file cannot be used."""
        self._current()
        return self._required

    def check_listener(self, host: str) -> None:
        """Refuse a non-loopback listener when there is nothing to authenticate against; a listener
        beyond loopback makes credentials required for good."""
        if is_loopback(host):
            return
        if not self.required:
            where = self.path or f"<run dir>/{FILE_NAME}"
            raise ListenerRefused(
                f"refusing to listen on {host} without credentials: a non-loopback listener needs at least "
                f"one user or token in {where} (create one with 'nos user add' or 'nos token add')")
        self._required = True

    def password(self, name: str, password: str) -> Principal | None:
        """A user's password, or a token given as the password of its name."""
        loaded = self._current()
        key = (name, token_digest(password))
        found = loaded.verified.get(key)
        if found is not None:
            return found
        user = loaded.creds.users.get(name)
        if user is not None and verify_password(password, user["password"]):
            found = Principal(name, user["role"])
        else:
            token = loaded.creds.tokens.get(name)
            if token is not None and hmac.compare_digest(token["sha256"], token_digest(password)):
                found = Principal(name, token["role"])
        if found is not None:
            loaded.verified[key] = found
        return found

    def token(self, token: str) -> Principal | None:
        """A bearer token."""
        digest = token_digest(token)
        for name, entry in self._current().creds.tokens.items():
            if hmac.compare_digest(entry["sha256"], digest):
                return Principal(name, entry["role"])
        return None


__all__ = ["ADMIN", "ANONYMOUS_ADMIN", "AuthError", "Authenticator", "Credentials", "FILE_NAME", "ListenerRefused",
           "Principal", "READ_ONLY", "ROLES", "add_token", "add_user", "file_stamp", "hash_password", "is_loopback",
           "is_loopback_address", "load", "new_token", "remove", "save", "token_digest", "verify_password"]
