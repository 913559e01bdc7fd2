"""MlagOrch: CONFIG_DB MCLAG_DOMAIN (its ``peer_link``) and MCLAG_INTERFACE (``<domain>|<name>``) into
``OrchDeps.mlag``, as mlagorch tracks them for FdbOrch. mlagorch takes an interface from the key alone
(the text after the first ``|``), whether or not its domain exists, and so does this; the CONFIG_DB
checks of ``nos.schema.config.mclag`` refuse such rows when they come through a transaction."""

from __future__ import annotations

import logging

from nos.daemon.task import Result
from nos.db.keyops import KeyOpFieldsValues
from nos.schema.dbconfig import CONFIG_DB
from nos.schema.tables import CFG_MCLAG_INTF_TABLE_NAME, CFG_MCLAG_TABLE_NAME
from orchagent.core.deps import OrchDeps

log = logging.getLogger(__name__)

CONSUMES = ((CONFIG_DB, CFG_MCLAG_TABLE_NAME), (CONFIG_DB, CFG_MCLAG_INTF_TABLE_NAME))


def interface_of(key: str) -> str:
    """``<domain>|<name>`` -> name ("" when the key has no ``|``)."""
    _, sep, name = key.partition("|")
    return name if sep else ""


class MlagOrch:
    CONSUMES = CONSUMES

    def __init__(self, deps: OrchDeps) -> None:
        self.mlag = deps.mlag

    def handle(self, table: str, task: KeyOpFieldsValues) -> Result:
        if table == CFG_MCLAG_TABLE_NAME:
            peer_link = "" if task.is_del else dict(task.fvs).get("peer_link", self.mlag.peer_link)
            if peer_link != self.mlag.peer_link:
                log.info("orch.mlag.peer_link old=%s new=%s", self.mlag.peer_link or "-", peer_link or "-")
            self.mlag.peer_link = peer_link
            return Result.success()
        name = interface_of(task.key)
        if not name:
            return Result.ignored(f"{task.key!r} is not <domain>|<interface>")
        if task.is_del:
            self.mlag.interfaces.discard(name)
        else:
            self.mlag.interfaces.add(name)
        return Result.success()


ORCH = MlagOrch
PRIORITY = 25
