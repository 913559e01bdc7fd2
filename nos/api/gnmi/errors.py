"""The errors of the gNMI server: each ends an RPC with one gRPC status code and a message.

Pure modules raise these without importing grpc; the servicer turns ``code`` (a ``grpc.StatusCode``
name) into the RPC status. Messages name the path and what is wrong with it.
"""

from __future__ import annotations


class GnmiError(Exception):
    """Raised when a request cannot be served; ``code`` is the gRPC status code name to answer with."""

    code = "INTERNAL"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class InvalidArgument(GnmiError):
    """Raised for a path, value or subscription parameter that cannot be used as given."""

    code = "INVALID_ARGUMENT"


class NotFound(GnmiError):
    """Raised when a path names data that does not exist (a Get of a missing row, an unknown DB)."""

    code = "NOT_FOUND"


class Unimplemented(GnmiError):
    """Raised for something gNMI allows but this server does not serve (an origin, an encoding)."""

    code = "UNIMPLEMENTED"


class PermissionDenied(GnmiError):
    """Raised for a write of something no client may write (the switch's own ``NOS_*`` tables)."""

    code = "PERMISSION_DENIED"


class Unavailable(GnmiError):
    """Raised when the switch's database cannot be reached."""

    code = "UNAVAILABLE"


__all__ = ["GnmiError", "InvalidArgument", "NotFound", "PermissionDenied", "Unavailable", "Unimplemented"]
