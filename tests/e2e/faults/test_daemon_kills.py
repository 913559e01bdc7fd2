"""A daemon killed in the middle of a routing-table load: the switch converges to exactly the objects of a
switch that never had a fault, and the ASIC never loses a route it had because of the restart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import RunningSwitch, nos, start_switch
from tests.e2e.faults.normalise import differences, normal_form, read_asic
from tests.e2e.faults.workload import daemon_pid, prepare, push_and_kill, routes_in_asic, wait

pytestmark = pytest.mark.e2e

ROUTES = 20_000
CONVERGE_S = 120.0


def converged(switch: RunningSwitch, routes: int, victim: str | None = None, old_pid: int = 0) -> bool:
    """Every route in the ASIC, nothing left queued, the victim back with a new process and running."""
    appl, asic, state = switch.db(0), switch.db(1), switch.db(6)
    if routes_in_asic(asic) < routes or appl.scard("ROUTE_TABLE_KEY_SET") or asic.llen("ASIC_STATE_KEY_VALUE_OP_QUEUE"):
        return False
    if victim is None:
        return True
    row = state.hgetall(f"NOS_DAEMON_TABLE|{victim}")
    return row.get("status") == "running" and int(row.get("pid", "0")) not in (0, old_pid)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The ASIC of a switch that took the same load without a fault."""
    sw = start_switch(tmp_path_factory.mktemp("ref"))
    try:
        base = prepare(sw)
        push_and_kill(sw, ROUTES, None, 0).stop.set()
        wait(lambda: converged(sw, base + ROUTES), "the reference switch's routes", CONVERGE_S)
        yield normal_form(read_asic(sw.db(1)))
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)


@pytest.mark.parametrize(("victim", "after"), [("orchagent", 3_000), ("syncd", 6_000), ("orchagent", 15_000)])
def test_a_daemon_killed_during_a_route_load_converges_to_the_faultless_asic(tmp_path, reference, victim, after):
    sw = start_switch(tmp_path)
    try:
        base = prepare(sw)
        old = daemon_pid(sw, victim)
        watch = push_and_kill(sw, ROUTES, victim, after)
        wait(lambda: converged(sw, base + ROUTES, victim, old), f"convergence after {victim} was killed", CONVERGE_S)
        watch.stop.set()
        assert watch.lowest is not None and watch.floor is not None
        assert watch.lowest >= watch.floor, f"the ASIC lost routes: {watch.floor} at the kill, {watch.lowest} after"
        got = normal_form(read_asic(sw.db(1)))
        assert got == reference, "\n".join(differences(got, reference))
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)
