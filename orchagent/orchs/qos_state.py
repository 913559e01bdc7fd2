"""What QosOrch holds: the SAI object of every map, scheduler and WRED profile, who refers to which
(qosorch's ``m_qos_maps`` object references), and each port's queues with their parent scheduler
groups (qosorch's ``m_scheduler_group_port_info``).

A referenced object is not removed (its DEL waits, and meanwhile it counts as gone for any row that
names it, as qosorch's ``m_pendingRemove``); a referrer is a CONFIG_DB row (``QUEUE|Ethernet0|3``) and
one of its fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Ref = tuple[str, str]        # (table, object name)
Referrer = tuple[str, str]   # (table, key)


@dataclass
class QosObject:
    """A SAI QOS_MAP / SCHEDULER / WRED made for one CONFIG_DB row."""

    oid: str
    attrs: dict[str, str] = field(default_factory=dict)
    # its DEL waits for the rows that use it (qosorch's m_pendingRemove): until it is removed, no row
    # may newly refer to it and its own SETs wait too
    pending_remove: bool = False


@dataclass
class QosRefs:
    """referrer row -> field -> the object it names."""

    by_referrer: dict[Referrer, dict[str, Ref]] = field(default_factory=dict)

    def of(self, referrer: Referrer) -> dict[str, Ref]:
        return dict(self.by_referrer.get(referrer, {}))

    def replace(self, referrer: Referrer, refs: dict[str, Ref]) -> None:
        if refs:
            self.by_referrer[referrer] = dict(refs)
        else:
            self.by_referrer.pop(referrer, None)

    def users(self, ref: Ref) -> list[str]:
        """``TABLE|key field`` of every row that refers to ``ref``."""
        return sorted(f"{table}|{key} {name}" for (table, key), fields in self.by_referrer.items()
                      for name, target in fields.items() if target == ref)


@dataclass(frozen=True)
class PortTree:
    """A port's queues (by index) and the scheduler group each queue hangs from ("" if none)."""

    port_oid: str
    queues: tuple[str, ...]
    parents: tuple[str, ...]


def parents_of(queues: list[str], children: dict[str, list[str]]) -> tuple[str, ...]:
    """For each queue, the scheduler group whose child list holds it (qosorch getSchedulerGroup)."""
    owner = {child: group for group, kids in children.items() for child in kids}
    return tuple(owner.get(queue, "") for queue in queues)
