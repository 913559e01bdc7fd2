"""What turning the intent off restores: exactly the rows from before, whatever happened in between."""

from __future__ import annotations

import json

import pytest

from nos.config.transaction import plan_changes
from nos.config.validate import validate_config
from nos.intent.roce import IntentError, plan
from tests.unit.nos.intent.roce.conftest import with_intent


def off(config):
    return {t: r for t, r in config.items() if t != "ROCE"}


def test_off_restores_exactly(default, facts) -> None:
    on = plan(with_intent(default), facts)
    assert plan_changes(default, plan(off(on), facts)) == []
    assert "NOS_ROCE_SAVED" not in plan(off(on), facts)


def test_disabled_row_restores_but_keeps_the_intent(default, facts) -> None:
    on = plan(with_intent(default), facts)
    disabled = plan({**on, "ROCE": {"global": {"enabled": "false"}}}, facts)
    assert plan_changes(default, off(disabled)) == []


def test_saved_rows_are_the_pre_intent_ones_after_changes(default, facts) -> None:
    on = plan(with_intent(default), facts)
    saved = json.loads(on["NOS_ROCE_SAVED"]["PORT_QOS_MAP"]["Ethernet0"])
    assert saved == default["PORT_QOS_MAP"]["Ethernet0"]
    assert json.loads(on["NOS_ROCE_SAVED"]["PFC_WD"]["Ethernet0"]) is None  # there was no row
    changed = plan(with_intent(on, profile="sonic", pfcwd="off", cable_length="300m"), facts)
    changed = plan(with_intent(changed, mode="lossy"), facts)
    assert json.loads(changed["NOS_ROCE_SAVED"]["PORT_QOS_MAP"]["Ethernet0"]) == saved
    assert plan_changes(default, plan(off(changed), facts)) == []


def test_rows_the_intent_stops_owning_go_back_at_once(default, facts) -> None:
    default["PFC_WD"] = {"Ethernet0": {"action": "alert", "detection_time": "400", "restoration_time": "400"}}
    on = plan(with_intent(default), facts)
    assert on["PFC_WD"]["Ethernet0"]["action"] == "drop"
    no_wd = plan(with_intent(on, pfcwd="off"), facts)  # the intent still owns the row: no watchdog
    assert "PFC_WD" not in no_wd
    lossy = plan(with_intent(no_wd, mode="lossy", ports="Ethernet4"), facts)  # Ethernet0 no longer covered
    assert lossy["PFC_WD"] == {"Ethernet0": default["PFC_WD"]["Ethernet0"]}
    assert lossy["PORT_QOS_MAP"]["Ethernet0"] == default["PORT_QOS_MAP"]["Ethernet0"]
    assert lossy["BUFFER_QUEUE"]["Ethernet0|3-4"] == default["BUFFER_QUEUE"]["Ethernet0|3-4"]


def test_rows_of_ports_gone_meanwhile_are_not_restored(default, facts) -> None:
    default["CABLE_LENGTH"]["AZURE"]["Ethernet4"] = "40m"
    on = plan(with_intent(default, cable_length="5m"), facts)
    del on["PORT"]["Ethernet4"]
    for table in ("PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD"):
        on[table] = {k: v for k, v in on[table].items() if not k.startswith("Ethernet4|") and k != "Ethernet4"}
    restored = plan(off(on), facts)
    assert "Ethernet4" not in restored["PORT_QOS_MAP"] and "Ethernet4|0" not in restored["BUFFER_PG"]
    assert "Ethernet4" not in restored["CABLE_LENGTH"]["AZURE"]
    assert restored["PORT_QOS_MAP"]["Ethernet8"] == default["PORT_QOS_MAP"]["Ethernet8"]


def test_a_corrupted_saved_row_is_refused_by_name(default, facts) -> None:
    on = plan(with_intent(default), facts)
    on["NOS_ROCE_SAVED"]["QUEUE"]["Ethernet0|3"] = "{not json"
    with pytest.raises(IntentError) as caught:
        plan(off(on), facts)
    (error,) = caught.value.errors
    assert (error.table, error.key, error.field) == ("NOS_ROCE_SAVED", "QUEUE", "Ethernet0|3")
    assert [(e.table, e.key) for e in validate_config(on).errors] == [("NOS_ROCE_SAVED", "QUEUE")]
