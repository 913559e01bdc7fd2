"""The lossless check: zero issues on the intent's expansion, and each kind of misconfiguration found
on exactly the port and priority it is about, with a fix."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from nos.intent.roce import plan
from nos.intent.roce.check import KINDS, ApplBuffers, check, minimum_xoff, required_xoff
from nos.intent.roce.model import default_intent, resolve
from nos.schema.config import Config
from tests.unit.nos.intent.roce.conftest import with_intent


@pytest.fixture
def lossless(default, facts) -> Config:
    return plan(with_intent(default), facts)


def found(config, facts, intent=None):
    return sorted((i.port, i.priority or -1, i.kind) for i in check(config, intent or default_intent(), facts))


def test_the_expansion_is_lossless_on_every_port(lossless, facts) -> None:
    assert check(lossless, default_intent(), facts) == []
    assert len({p for p in lossless["PORT"]}) == 128


@pytest.mark.parametrize("profile", ["nvidia", "sonic"])
@pytest.mark.parametrize("mode", ["lossless", "lossy"])
def test_every_profile_and_mode_checks_clean(default, facts, profile, mode) -> None:
    config = plan(with_intent(default, profile=profile, mode=mode), facts)
    assert check(config, resolve({"profile": profile, "mode": mode}), facts) == []


def _drop_dscp_map(c: Config) -> None:
    del c["PORT_QOS_MAP"]["Ethernet0"]["dscp_to_tc_map"]
    del c["PORT_QOS_MAP"]["global"]


def _bad_tc_to_pg(c: Config) -> None:
    c["TC_TO_PRIORITY_GROUP_MAP"]["BAD"] = {str(tc): "0" for tc in range(8)}
    c["PORT_QOS_MAP"]["Ethernet4"]["tc_to_pg_map"] = "BAD"


def _cable_longer_than_headroom(c: Config) -> None:
    c["CABLE_LENGTH"]["AZURE"]["Ethernet0"] = "300m"  # the PG keeps the 5 m profile


CASES: list[tuple[str, Callable[[Config], None], list[tuple[str, int | None, str]]]] = [
    ("dscp map missing on a port", _drop_dscp_map, [("Ethernet0", None, "dscp_map_missing")]),
    ("RoCE DSCP to another TC", lambda c: c["PORT_QOS_MAP"]["Ethernet8"].update(dscp_to_tc_map="AZURE"),
     [("Ethernet8", 3, "dscp_wrong_priority")]),
    ("priority not mapped to a lossless PG", _bad_tc_to_pg, [("Ethernet4", 3, "pg_not_lossless")]),
    ("PFC pauses another queue", lambda c: c["PORT_QOS_MAP"]["Ethernet0"].pop("pfc_to_queue_map"),
     [("Ethernet0", 3, "queue_not_lossless")]),
    ("lossy egress buffer on the RoCE queue",
     lambda c: c["BUFFER_QUEUE"]["Ethernet0|3"].update(profile="egress_lossy_profile"),
     [("Ethernet0", 3, "queue_not_lossless")]),
    ("PFC not enabled", lambda c: c["PORT_QOS_MAP"]["Ethernet8"].update(pfc_enable="4"),
     [("Ethernet8", 3, "pfc_not_enabled")]),
    ("no headroom", lambda c: c["BUFFER_PG"].pop("Ethernet0|3"), [("Ethernet0", 3, "headroom_missing")]),
    ("lossy profile on the PG", lambda c: c["BUFFER_PG"]["Ethernet0|3"].update(profile="ingress_lossy_profile"),
     [("Ethernet0", 3, "headroom_missing")]),
    ("too little headroom for the cable", _cable_longer_than_headroom, [("Ethernet0", 3, "headroom_too_small")]),
    ("ECN off on the lossless queue", lambda c: c["QUEUE"]["Ethernet0|3"].pop("wred_profile"),
     [("Ethernet0", 3, "ecn_off")]),
    ("WRED without ECN", lambda c: c["WRED_PROFILE"]["ROCE"].update(ecn="ecn_none"),
     [(f"Ethernet{4 * i}", 3, "ecn_off") for i in range(128)]),
    ("watchdog off", lambda c: c["PFC_WD"].pop("Ethernet12"), [("Ethernet12", 3, "watchdog_off")]),
    ("watchdog not on the priority", lambda c: c["PORT_QOS_MAP"]["Ethernet12"].update(pfcwd_sw_enable="4"),
     [("Ethernet12", 3, "watchdog_off")]),
    ("CNP not prioritised", lambda c: c["QUEUE"]["Ethernet0|6"].update(scheduler="roce.default"),
     [("Ethernet0", 6, "cnp_not_prioritised")]),
]


@pytest.mark.parametrize(("what", "breaks", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_misconfiguration_is_named(lossless, facts, what, breaks, expected) -> None:
    breaks(lossless)
    issues = check(lossless, default_intent(), facts)
    assert sorted((i.port, i.priority or -1, i.kind) for i in issues) == sorted((p, q or -1, k) for p, q, k in expected)
    assert all(i.detail and i.fix for i in issues)


def test_every_kind_has_a_case() -> None:
    assert {kind for _, _, expected in CASES for _, _, kind in expected} == set(KINDS)


def test_sonics_default_configuration_is_not_lossless_for_nvidia_roce(default, facts) -> None:
    kinds = {kind for _, _, kind in found(default, facts)}
    assert kinds == {"dscp_wrong_priority", "headroom_missing", "watchdog_off", "cnp_not_prioritised"}


def test_dynamic_model_profiles_come_from_appl_db(default, facts) -> None:
    default["DEVICE_METADATA"]["localhost"]["buffer_model"] = "dynamic"
    config = plan(with_intent(default), facts)
    assert config["BUFFER_PG"]["Ethernet0|3"] == {"profile": "NULL"}
    assert "pg_lossless_400000_5m_profile" not in config["BUFFER_PROFILE"]
    assert {k for _, _, k in found(config, facts)} == {"headroom_missing"}  # not computed yet
    name = "pg_lossless_400000_5m_profile"
    pgs = {f"{port}:3": {"profile": name} for port in config["PORT"]}
    profiles = {name: {"xoff": "160768", "size": "18432"}, "pg_lossless_400000_40m_profile": {"xoff": "199680"}}
    assert check(config, default_intent(), facts, ApplBuffers(pgs, profiles)) == []
    pgs["Ethernet8:3"] = {"profile": "pg_lossless_400000_40m_profile"}  # computed for another cable
    issues = check(config, default_intent(), facts, ApplBuffers(pgs, profiles))
    assert [(i.port, i.priority, i.kind) for i in issues] == [("Ethernet8", 3, "headroom_too_small")]


def test_required_headroom_rounds_up_the_cable_then_uses_physics(facts) -> None:
    assert required_xoff(facts, 400000, "100m") == 612140  # the 150 m row
    assert required_xoff(facts, 400000, "1000m") == 687916 + 353536  # the 300 m row + 700 m more
    assert required_xoff(facts, 25000, "5m") == minimum_xoff(25000, 5) == 158 + 80 * 64 + 2 * 9100
