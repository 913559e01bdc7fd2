"""What show roce / roce check / the REST intent resource report, on plain data."""

from __future__ import annotations

from nos.intent.roce import plan
from nos.intent.roce.status import check_report, intent_report
from tests.unit.nos.intent.roce.conftest import with_intent


def test_not_configured(default) -> None:
    assert intent_report(default)["configured"] is None and not intent_report(default)["enabled"]
    report = check_report(default)
    assert report["expected"] == "profile nvidia" and not report["lossless"] and report["ports"] == 128
    assert check_report(default, profile="sonic")["expected"] == "profile sonic"


def test_in_sync_and_drift(default, facts) -> None:
    on = plan(with_intent(default, profile="sonic"), facts)
    report = intent_report(on)
    assert report["enabled"] and report["in_sync"] and report["resolved"]["roce_dscp"] == (3, 4)
    on["QUEUE"]["Ethernet0|3"] = {"scheduler": "roce.roce"}
    drift = intent_report(on)
    assert not drift["in_sync"] and drift["pending_changes"] == 1
    assert [i["kind"] for i in check_report(on)["issues"]] == ["ecn_off"]


def test_refused_and_disabled_intents(default, facts) -> None:
    refused = intent_report(with_intent(default, cnp_dscp="26"))
    assert refused["error"] == ["ROCE|global: field 'cnp_dscp' = '26': is also a RoCE DSCP; CNPs need their own"]
    assert check_report(with_intent(default, cnp_dscp="26"))["expected"] == "profile nvidia"
    disabled = with_intent(default, profile="sonic", enabled="false")
    assert check_report(disabled)["expected"] == "intent (disabled)" and check_report(disabled)["priorities"] == [3, 4]
