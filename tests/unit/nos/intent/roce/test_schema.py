"""ROCE|global and NOS_ROCE_SAVED in the CONFIG_DB schema: config load, REST and gNMI refuse what the
intent manager would, naming table, key and field."""

from __future__ import annotations

from nos.config.validate import validate_config
from tests.unit.nos.intent.roce.conftest import with_intent


def errors(config):
    return [(e.table, e.key, e.field, e.value) for e in validate_config(config).errors]


def test_a_good_intent_validates(default) -> None:
    assert errors(with_intent(default, profile="sonic", ports="Ethernet0,Ethernet4", pfcwd="off")) == []


def test_bad_fields_are_refused_with_table_key_field(default) -> None:
    assert errors(with_intent(default, cnp_dscp="26")) == [("ROCE", "global", "cnp_dscp", "26")]
    assert errors(with_intent(default, mode="fast")) == [("ROCE", "global", "mode", "fast")]
    assert ("ROCE", "global", "ports", "Ethernet1") in errors(with_intent(default, ports="Ethernet1"))


def test_only_the_global_key_exists(default) -> None:
    config = {**default, "ROCE": {"mine": {}}}
    assert [(t, k) for t, k, _, _ in errors(config)] == [("ROCE", "mine")]


def test_what_the_sku_cannot_do_is_refused_in_a_whole_configuration(default) -> None:
    assert errors(with_intent(default, cable_length="7m")) == [("ROCE", "global", "cable_length", "7m")]
    fragment = {"ROCE": {"global": {"cable_length": "7m"}}}  # no SKU, no ports: only the row's own rules
    assert validate_config(fragment, partial=True).errors == []
