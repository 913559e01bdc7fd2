"""The traditional model's lossless decision and the shared naming helpers, on plain data."""

from __future__ import annotations

from nos.cfgmgr.buffer_lossless import (
    config_to_appl_key,
    dynamic_profile_name,
    lookup_table,
    pg_ranges,
    plan_traditional,
)
from nos.platform.sku import PgLookupRow

LOOKUP = lookup_table([PgLookupRow(100000, "300m", "56368", "18432", "55120", "-3", "2496"),
                       PgLookupRow(40000, "5m", "1", "2", "3", "0", None)])


def test_pg_ranges() -> None:
    assert pg_ranges("3,4") == ["3-4"]
    assert pg_ranges("3") == ["3"]
    assert pg_ranges("1,3,4,x") == ["1", "3-4"]
    assert pg_ranges("") == []


def test_profile_names() -> None:
    assert dynamic_profile_name("100000", "5m", "9100") == "pg_lossless_100000_5m_profile"
    assert dynamic_profile_name("100000", "5m", "1500") == "pg_lossless_100000_5m_mtu1500_profile"
    assert dynamic_profile_name("100000", "5m", "1500", "1") == "pg_lossless_100000_5m_mtu1500_th1_profile"
    assert config_to_appl_key("Ethernet0|3-4") == "Ethernet0:3-4"


def test_lookup_row_becomes_profile_and_pg() -> None:
    plan = plan_traditional("Ethernet0", "100000", "300m", "3,4", LOOKUP, "dynamic", profile_exists=False)
    assert plan.profile == "pg_lossless_100000_300m_profile"
    assert plan.profile_fields == {"pool": "ingress_lossless_pool", "xon": "18432", "xon_offset": "2496",
                                   "xoff": "55120", "size": "56368", "dynamic_th": "-3"}
    assert plan.pgs == ("3-4",)


def test_existing_profile_is_reused_and_static_pool_names_static_th() -> None:
    assert plan_traditional("Ethernet0", "100000", "300m", "3,4", LOOKUP, "dynamic", True).profile_fields == {}
    fields = plan_traditional("Ethernet0", "40000", "5m", "3", LOOKUP, "static", False).profile_fields
    assert "xon_offset" not in fields and fields["static_th"] == "0"


def test_zero_cable_and_missing_row() -> None:
    assert plan_traditional("Ethernet0", "40000", "0m", "3,4", LOOKUP, "dynamic", False).skip
    plan = plan_traditional("Ethernet0", "10000", "80m", "3,4", LOOKUP, "dynamic", False)
    assert "speed 10000 and cable length 80m" in plan.invalid and not plan.pgs
