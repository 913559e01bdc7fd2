"""A restarted orchagent rebuilds its view beside the running ASIC; APPLY_VIEW keeps what did not change."""

from __future__ import annotations

import pytest

from nos.sai.types import ObjectType as T
from orchagent.orchs.port import PortOrch
from orchagent.orchs.switch import apply_view
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration


def test_a_restarted_orchagent_gets_its_ports_oper_state_in_the_temporary_view(orchagent, dbs, syncd):
    first = orchagent(PortOrch)
    before = boot_ports(first, dbs, 4)
    first.drive(lambda: all(first.deps.registry.get(n).oper_up for n in before))
    second = orchagent(PortOrch)  # INIT_VIEW on a running ASIC: a temporary view
    assert syncd.syncd.temp is not None
    second.drive(lambda: all((e := second.deps.registry.get(n)) is not None and e.oper_up for n in before))
    queues = {q for n in before for q in second.orchs[PortOrch].ports[n].queues}
    assert queues == {q for n in before for q in first.orchs[PortOrch].ports[n].queues}  # the ASIC's own keep ids
    apply_view(second.deps.sai)
    assert syncd.syncd.temp is None
    store = syncd.syncd.store
    assert {p for p in store.of_type(T.PORT) if not store.find(T.PORT, p).builtin} == {
        second.orchs[PortOrch].ports[n].oid for n in before}
