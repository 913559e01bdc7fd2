"""TransceiverOrch: STATE_DB TRANSCEIVER_INFO -> a port's SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE.

portsorch's ``doTransceiverInfoTableTask`` (where the ASIC syncs with CMIS modules, as SONiC's virtual
switch does): a module appearing for a port lets the port signal host tx (true), its removal stops it
(false); a port already known as plugged is not set again. PortOrch creates every port with the signal
off. A row for a port that does not exist (yet) waits for it.
"""

from __future__ import annotations

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.sai.ops import SaiOp
from nos.sai.types import ObjectType as T
from nos.sai.values import sai_bool
from nos.schema.dbconfig import STATE_DB
from nos.schema.tables import STATE_TRANSCEIVER_INFO_TABLE_NAME
from orchagent.core.deps import OrchDeps
from orchagent.core.registry import Kind
from orchagent.orchs.port_state import HOST_TX_SIGNAL


class TransceiverOrch:
    CONSUMES = ((STATE_DB, STATE_TRANSCEIVER_INFO_TABLE_NAME),)
    PRODUCES = ()

    def __init__(self, deps: OrchDeps) -> None:
        self.deps = deps
        self.plugged: set[str] = set()

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        name = task.key
        if task.is_set == (name in self.plugged):
            return Result.ignored()
        port = self.deps.registry.get(name)
        if port is None or port.kind is not Kind.PORT:
            if not task.is_set:  # the port went first: nothing to turn off
                self.plugged.discard(name)
                return Result.ignored(f"no port {name}")
            return Result.retry(f"no port {name} yet")
        result = self.deps.sai.apply([SaiOp.set(T.PORT, port.oid, HOST_TX_SIGNAL, sai_bool(task.is_set))])
        if not result.ok:
            return Result.failed(f"{result.status} {result.reason}")
        if task.is_set:
            self.plugged.add(name)
        else:
            self.plugged.discard(name)
        return Result.success()


ORCH = TransceiverOrch
PRIORITY = 1
