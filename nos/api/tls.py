"""TLS for the management listeners, from certificate files given as flags.

Three modes, kept apart as sonic-gnmi's users asked (reference ecosystem.md section 5, item 6):
plain (no files), TLS (``--tls-cert`` and ``--tls-key``), and mutual TLS (also ``--tls-ca``: a
client must present a certificate signed by that CA, or the handshake fails).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class TlsError(ValueError):
    """Certificate flags that cannot be used (names the flag and the file)."""


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    ca: Path | None = None  # set = mutual TLS

    @staticmethod
    def from_flags(cert: str | None, key: str | None, ca: str | None) -> TlsFiles | None:
        """None for plain text; raises TlsError for an incomplete or unreadable set."""
        if not cert and not key:
            if ca:
                raise TlsError("--tls-ca (mutual TLS) needs --tls-cert and --tls-key as well")
            return None
        if not cert or not key:
            raise TlsError("TLS needs both --tls-cert and --tls-key")
        files = TlsFiles(Path(cert), Path(key), Path(ca) if ca else None)
        for flag, path in (("--tls-cert", files.cert), ("--tls-key", files.key), ("--tls-ca", files.ca)):
            if path is not None and not path.is_file():
                raise TlsError(f"{flag} {path}: no such file")
        return files

    @property
    def mutual(self) -> bool:
        return self.ca is not None

    def uvicorn_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``uvicorn.run``."""
        kwargs: dict[str, Any] = {"ssl_certfile": str(self.cert), "ssl_keyfile": str(self.key)}
        if self.ca is not None:
            kwargs |= {"ssl_ca_certs": str(self.ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
        return kwargs

    def grpc_credentials(self) -> Any:
        """``grpc.ServerCredentials`` for ``server.add_secure_port``."""
        import grpc  # only the gNMI server needs grpc

        root = self.ca.read_bytes() if self.ca is not None else None
        return grpc.ssl_server_credentials([(self.key.read_bytes(), self.cert.read_bytes())],
                                           root_certificates=root, require_client_auth=root is not None)

    def as_args(self) -> list[str]:
        """The flags again, for passing to a child server process."""
        args = ["--tls-cert", str(self.cert), "--tls-key", str(self.key)]
        return args + (["--tls-ca", str(self.ca)] if self.ca is not None else [])


__all__ = ["TlsError", "TlsFiles"]
