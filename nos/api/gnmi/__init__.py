"""The gNMI server: sonic-gnmi's path schemes over this switch's databases, on grpcio.

Layout, from the wire inwards:

* ``server`` builds the grpc server (plain, TLS or mutual TLS; auth in ``guard``) and ``__main__``
  runs it: ``python -m nos.api.gnmi --redis URL --host H --port N --run-dir DIR --auth-file F
  --tls-cert F --tls-key F --tls-ca F`` (the REST server's flags). The bound port (0 = any) is
  printed and written to ``<run dir>/gnmi.json``, with the local plaintext socket
  ``<run dir>/gnmi.sock`` that ``nos up`` and ``nos status`` use to check that Capabilities answers.
* ``service``: Capabilities, Get, Set, Subscribe; ``subscribe`` holds the ONCE/POLL/STREAM logic,
  ``write`` turns a SetRequest into one CONFIG_DB transaction, ``changes`` is the process's one
  keyspace subscription per DB shared by every ON_CHANGE stream.
* ``paths`` (pure) parses paths into addresses, ``selection`` and ``virtual`` turn addresses into
  Redis entries (plain tables, or COUNTERS_DB's virtual paths through the name maps), ``reader``
  reads them and ``encoding`` / ``responses`` build the answers.

The stubs are pygnmi's compiled gNMI 0.8.0 stubs (``pygnmi.spec.v080``): one stub set per process,
so pygnmi clients (tests, benchmarks) can share a process with this server.

gRPC's fork handlers are switched off (``GRPC_ENABLE_FORK_SUPPORT=false``) unless the environment
says otherwise: processes that load this package and later start children (``nos up``, the test
runner) would otherwise log a warning per child and risk a stall in the fork handlers.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
