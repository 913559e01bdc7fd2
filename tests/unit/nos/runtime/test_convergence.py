"""Judging the ASIC against APPL_DB from figures (pure)."""

from __future__ import annotations

from nos.runtime.convergence import (
    START_ROUTES,
    Backlog,
    PortFigures,
    RouteFigures,
    judge_ports,
    judge_routes,
    same_lanes,
)

IDLE = Backlog()


def routes(**kw):
    base = dict(asic=START_ROUTES, wanted=0, queued=0, refused=0, defaults=0, ip2me=0)
    return RouteFigures(**{**base, **kw})


def test_expected_routes_allow_for_start_entries_ip2me_refused_defaults_and_non_asic():
    f = routes(asic=100_068, wanted=100_070, refused=3, defaults=1, ip2me=2, not_asic=4)
    assert f.expected == START_ROUTES + 2 + 100_070 - 3 - 1 - 4 == 100_068
    check = judge_routes(f, IDLE)
    assert check.ok and "100,068 of 100,068 in the ASIC" in check.detail and "3 refused" in check.detail


def test_routes_waiting_in_appl_db_are_converging_with_the_figures():
    f = routes(asic=4, wanted=100_064, queued=100_064)
    check = judge_routes(f, Backlog(appl={"ROUTE_TABLE": 100_064}))
    assert not check.ok and check.waiting
    assert check.detail == "routes: 4 of 100,068 in the ASIC, 100,064 waiting in APPL_DB ROUTE_TABLE"


def test_missing_routes_with_nothing_in_flight_are_not_converging():
    check = judge_routes(routes(asic=10, wanted=8), IDLE)
    assert not check.ok and not check.waiting and "routes missing from the ASIC" in check.detail
    check = judge_routes(routes(asic=14, wanted=8), IDLE)
    assert not check.ok and "does not ask for" in check.detail


def test_backlog_total_and_description():
    backlog = Backlog(appl={"ROUTE_TABLE": 5, "PORT_TABLE": 1}, asic_requests=2, asic_answers=1,
                      daemons={"orchagent": 7})
    assert backlog.total == 16
    assert backlog.describe() == ("1 in APPL_DB PORT_TABLE, 5 in APPL_DB ROUTE_TABLE, 2 ASIC requests queued for "
                                  "syncd, 1 ASIC answers not yet read by orchagent, 7 pending in orchagent")
    assert IDLE.describe() == "nothing waiting" and not IDLE.total


def test_ports():
    ok = judge_ports(PortFigures(131, 130, 1, [], 130, True), IDLE)
    assert ok.ok and "130 of 131 APPL_DB ports in the ASIC" in ok.detail and "1 refused" in ok.detail
    stale = judge_ports(PortFigures(131, 131, 0, [], 132, True), IDLE)  # a port APPL_DB no longer has
    assert not stale.ok and "132 port objects" in stale.detail and not stale.waiting
    moving = judge_ports(PortFigures(131, 128, 0, ["Ethernet1", "Ethernet2", "Ethernet3"], 128, True),
                         Backlog(appl={"PORT_TABLE": 3}))
    assert not moving.ok and moving.waiting and "missing: Ethernet1, Ethernet2, Ethernet3" in moving.detail
    assert not judge_ports(PortFigures(1, 1, 0, [], 1, False), IDLE).ok


def test_same_lanes():
    assert same_lanes("4:0,1,2,3", "0,1,2,3") and same_lanes("1:5", "5")
    assert not same_lanes("4:0,1,2,3", "0") and not same_lanes("1:0", "1")
