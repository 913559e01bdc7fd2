"""The one rule for CONFIG_DB table names: case-exact, never empty, never holding the key separator."""

from __future__ import annotations

import pytest

from nos.schema.config.registry import case_twin
from nos.schema.tables import table_name_problem


@pytest.mark.parametrize("name", ["PORT", "port", "Port", "SNMP_COMMUNITY", "sflow", "A/B", "x y"])
def test_any_other_name_is_a_table_of_its_own(name: str) -> None:
    assert table_name_problem(name) is None


@pytest.mark.parametrize(("name", "says"), [("", "cannot be empty"), ("PORT|Ethernet0", "cannot contain '|'")])
def test_the_empty_name_and_the_separator_are_refused(name: str, says: str) -> None:
    problem = table_name_problem(name)
    assert problem is not None and says in problem


def test_a_case_twin_is_only_a_hint_for_an_unmodelled_name() -> None:
    assert case_twin("port") == "PORT" and case_twin("Vlan_Member") == "VLAN_MEMBER"
    assert case_twin("PORT") is None and case_twin("SNMP_COMMUNITY") is None
