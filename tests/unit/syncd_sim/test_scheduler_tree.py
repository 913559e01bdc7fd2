"""The scheduler hierarchy syncd_sim creates with each port, read back as orchagent reads it at start:
SCHEDULER_GROUP_LIST of the port, then CHILD_LIST / CHILD_COUNT of every group."""

from __future__ import annotations

from nos.sai.types import ObjectType as T
from nos.sai.values import parse_list
from tests.unit.syncd_sim.compile.switchkit import SwitchKit


def get(kit: SwitchKit, kind: T, oid: str, attr: str) -> str:
    out = kit.store.get(kind, oid, [attr])
    assert out.ok, out.reason
    return out.values[attr]


def test_each_ports_groups_hold_its_own_queues_once_root_first() -> None:
    kit = SwitchKit(n_ports=3)
    seen: set[str] = set()
    for port in kit.ports:
        groups = parse_list(get(kit, T.PORT, port, "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST"))
        queues = parse_list(get(kit, T.PORT, port, "SAI_PORT_ATTR_QOS_QUEUE_LIST"))
        root, *leaves = groups
        assert parse_list(get(kit, T.SCHEDULER_GROUP, root, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST")) == leaves
        assert get(kit, T.SCHEDULER_GROUP, root, "SAI_SCHEDULER_GROUP_ATTR_CHILD_COUNT") == str(len(leaves))
        under_leaves = [q for leaf in leaves
                        for q in parse_list(get(kit, T.SCHEDULER_GROUP, leaf, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST"))]
        assert sorted(under_leaves) == sorted(queues) and len(queues) == len(leaves)
        assert not seen & set(under_leaves)     # no other port's queue under this port's groups
        seen.update(under_leaves)


def test_a_queue_moved_to_another_group_is_listed_there() -> None:
    kit = SwitchKit(n_ports=1)
    port = kit.ports[0]
    _, first, second, *_ = parse_list(get(kit, T.PORT, port, "SAI_PORT_ATTR_QOS_SCHEDULER_GROUP_LIST"))
    [queue] = parse_list(get(kit, T.SCHEDULER_GROUP, first, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST"))
    kit.set(T.QUEUE, queue, "SAI_QUEUE_ATTR_PARENT_SCHEDULER_NODE", second)
    assert get(kit, T.SCHEDULER_GROUP, first, "SAI_SCHEDULER_GROUP_ATTR_CHILD_COUNT") == "0"
    assert queue in parse_list(get(kit, T.SCHEDULER_GROUP, second, "SAI_SCHEDULER_GROUP_ATTR_CHILD_LIST"))
