"""A real uvicorn server in a thread on 127.0.0.1 (port 0), serving on a socket prepared the way the
server's ``__main__`` prepares an inherited one, for tests that need the network: auth, TLS, sockets."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

from nos.api.rest.__main__ import inherited_socket
from tests.conftest import wait_until


@contextmanager
def serving(app: FastAPI, **kwargs: Any) -> Iterator[tuple[int, uvicorn.Server]]:
    """Serve ``app`` until the block ends; yields (port, server). ``kwargs`` go to ``uvicorn.Config``."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    sock = inherited_socket(os.dup(listener.fileno()))  # as if inherited from nos up
    listener.close()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, log_config=None, **kwargs))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), timeout=10)
        assert server.started, "the server did not start"
        yield port, server
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
