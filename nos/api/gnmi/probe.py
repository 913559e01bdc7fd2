"""Is a gNMI server answering? One Capabilities call, for ``nos up`` and ``nos status``.

An answer of UNAUTHENTICATED counts: the server is up and checking credentials, which the caller
(the supervisor) does not have.
"""

from __future__ import annotations

from nos.api import gnmi  # noqa: F401 - sets GRPC_ENABLE_FORK_SUPPORT before grpc loads


def capabilities(target: str, timeout: float = 1.0) -> tuple[bool, str]:
    """(answers, detail) for a plaintext target such as ``unix:/run/dir/gnmi.sock`` or ``127.0.0.1:8080``."""
    import grpc
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

    channel = grpc.insecure_channel(target)
    try:
        reply = gnmi_pb2_grpc.gNMIStub(channel).Capabilities(gnmi_pb2.CapabilityRequest(), timeout=timeout)
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.UNAUTHENTICATED:
            return True, "answers Capabilities (credentials required)"
        return False, f"{error.code().name}: {error.details()}"
    finally:
        channel.close()
    return True, f"answers Capabilities (gNMI {reply.gNMI_version})"


__all__ = ["capabilities"]
