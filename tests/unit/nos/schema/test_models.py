"""CONFIG_DB row models: leaf types, the pydantic models built on them, and the table registry."""

from __future__ import annotations

import pydantic
import pytest

from nos.schema import tables
from nos.schema.config import (
    AnyOf,
    Bool,
    Choice,
    ConfigError,
    Csv,
    IndexRange,
    Int,
    Ip,
    Leaf,
    ListOf,
    MapRow,
    Text,
    field_rules,
    strip_brackets,
)
from nos.schema.config.buffer import BufferPgRow, BufferPoolRow, CableLengthRow
from nos.schema.config.device import DeviceMetadataRow
from nos.schema.config.interface import InterfaceIpRow, InterfaceRow
from nos.schema.config.pfcwd import PfcWdGlobalRow, PfcWdRow
from nos.schema.config.port import PortRow
from nos.schema.config.qos import DscpToTcMapRow, PortQosMapRow
from nos.schema.config.registry import TABLES, row_model, schema_for, shape_for
from nos.schema.config.route import StaticRouteRow
from nos.schema.config.vlan import VlanRow


@pytest.mark.parametrize(
    ("leaf", "good", "bad"),
    [
        (Int(68, 9216), ["68", "9216", "+100", "0100"], ["67", "9217", "abc", "", "1.5", " 100"]),
        (Int(-8, 7), ["-8", "0", "7"], ["-9", "8"]),
        (Int(0, 63, canonical=True), ["0", "63"], ["063", "+1", "64"]),
        (Choice("up", "down"), ["up", "down"], ["UP", "", "upp"]),
        (Text(1, 3), ["a", "abc"], ["", "abcd"]),
        (Bool(), ["true", "false"], ["True", "1", "yes"]),
        (Bool(capitalised=True), ["True", "false"], ["TRUE", "1"]),
        (Ip(), ["10.0.0.1", "fc00::1"], ["10.0.0.256", "10.0.0.1/24", "x"]),
        (Ip(4), ["10.0.0.1"], ["fc00::1"]),
        (
            Ip(prefix=True),
            ["10.0.0.1/31", "fc00::1/126", "0.0.0.0/0"],
            ["10.0.0.1", "10.0.0.1/33", "fc00::/129"],
        ),
        (Csv(Int(0, 7)), ["3", "3,4"], ["", "3,", "3,8", "a"]),
        (Csv(Int(0, 7), empty=True), ["", "0,7"], ["8"]),
        (IndexRange(0, 7, "pg"), ["0", "3-4", "7-7"], ["8", "4-3", "3-", "-1", "3-4-5"]),
        (AnyOf(Choice("auto"), Int(1, 65535)), ["auto", "1", "65535"], ["0", "manual"]),
    ],
)
def test_leaf_accepts_exactly_what_the_yang_accepts(leaf: Leaf, good: list[str], bad: list[str]) -> None:
    assert [value for value in good if leaf.check(value) is not None] == []
    assert [value for value in bad if leaf.check(value) is None] == []


def test_scalar_leaves_refuse_lists_and_list_leaves_take_both_spellings() -> None:
    assert Int(0, 7).check(["1"]) == "must be a single value, not a list"
    servers = ListOf(Ip(4))
    assert servers.check(["10.0.0.1", "10.0.0.2"]) is None
    assert servers.check("10.0.0.1,10.0.0.2") is None
    assert servers.check(["10.0.0.1", "x"]) == "must be a list of IPv4 addresses; bad item 'x'"
    assert servers.items("10.0.0.1,10.0.0.2") == ["10.0.0.1", "10.0.0.2"]


def test_messages_read_as_must_be_phrases() -> None:
    assert Int(68, 9216).check("1") == "must be an integer in 68..9216"
    assert Choice("rs", "fc").check("x") == "must be one of rs, fc"
    assert Csv(Int(0, 7)).check("9") == "must be a comma-separated list of integers in 0..7"


def test_legacy_bracket_references_are_stripped_for_their_own_table() -> None:
    assert strip_brackets("[SCHEDULER|scheduler.0]", ("SCHEDULER",)) == "scheduler.0"
    assert strip_brackets("[QUEUE|x]", ("SCHEDULER",)) == "[QUEUE|x]"
    assert strip_brackets("scheduler.0", ("SCHEDULER",)) == "scheduler.0"


def test_config_error_reads_like_a_sentence() -> None:
    assert str(ConfigError("PORT", "Ethernet0", "mtu", "99999", "must be an integer in 68..9216")) == (
        "PORT|Ethernet0: field 'mtu' = '99999': must be an integer in 68..9216"
    )
    assert str(
        ConfigError("VLAN_MEMBER", "Vlan100|Ethernet999", None, None, "references port 'Ethernet999'")
    ) == ("VLAN_MEMBER|Vlan100|Ethernet999: references port 'Ethernet999'")
    assert str(ConfigError("MCLAG_DOMAIN", "", None, None, "has 2 rows")) == "MCLAG_DOMAIN: has 2 rows"


# ---- the pydantic models --------------------------------------------------------------------------


def test_port_row_converts_config_db_strings_to_typed_values() -> None:
    row = PortRow.model_validate(
        {
            "lanes": "0,1,2,3",
            "speed": "400000",
            "mtu": "9100",
            "adv_speeds": "100000,400000",
            "dhcp_servers": ["10.0.0.1"],
            "mux_cable": "true",
            "vendor": "kept",
        }
    )
    assert (row.lanes, row.speed, row.mtu, row.adv_speeds) == ([0, 1, 2, 3], 400000, 9100, [100000, 400000])
    assert row.dhcp_servers == ["10.0.0.1"] and row.mux_cable is True
    assert row.model_extra == {"vendor": "kept"}


def test_models_refuse_with_the_same_reason_as_validation() -> None:
    with pytest.raises(pydantic.ValidationError, match="must be an integer in 68..9216"):
        PortRow.model_validate({"lanes": "0", "speed": "1000", "mtu": "99999"})
    with pytest.raises(pydantic.ValidationError, match="speed"):
        PortRow.model_validate({"lanes": "0"})
    with pytest.raises(pydantic.ValidationError, match="must be an integer in 2..4094"):
        VlanRow.model_validate({"vlanid": "4095"})


def test_models_built_in_code_take_typed_values() -> None:
    assert PortRow(lanes=[0, 1], speed=100000).lanes == [0, 1]
    assert BufferPoolRow(type="ingress", mode="static", size=1024).size == 1024


def test_aliases_carry_config_db_field_names() -> None:
    route = StaticRouteRow.model_validate({"nexthop-vrf": "default,Vrf_red", "blackhole": "false,true"})
    assert route.nexthop_vrf == "default,Vrf_red"
    metadata = DeviceMetadataRow.model_validate({"suppress-fib-pending": "enabled", "bgp_asn": "65100"})
    assert (metadata.suppress_fib_pending, metadata.bgp_asn) == ("enabled", 65100)
    assert "nexthop-vrf" in field_rules(StaticRouteRow)


def test_map_rows_check_and_convert_their_entries() -> None:
    assert DscpToTcMapRow.model_validate({"0": "1", "46": "5"}).mapping() == {0: 1, 46: 5}
    assert CableLengthRow.model_validate({"Ethernet0": "5m"}).mapping() == {"Ethernet0": "5m"}
    with pytest.raises(pydantic.ValidationError, match="field name '64': must be an integer in 0..63"):
        DscpToTcMapRow.model_validate({"64": "1"})
    with pytest.raises(pydantic.ValidationError, match="field value '16'"):
        DscpToTcMapRow.model_validate({"1": "16"})


def test_field_rules_know_types_references_and_mandatory_fields() -> None:
    rules = field_rules(PortRow)
    assert rules["speed"].required and rules["lanes"].required and not rules["mtu"].required
    assert rules["mtu"].leaf.check("9100") is None
    profile = field_rules(BufferPgRow)["profile"].ref
    assert profile is not None and profile.tables == ("BUFFER_PROFILE",) and "NULL" in profile.allow
    assert field_rules(PortQosMapRow)["pfc_to_queue_map"].ref.tables == ("MAP_PFC_PRIORITY_TO_QUEUE",)  # type: ignore[union-attr]


# ---- the registry ---------------------------------------------------------------------------------


def test_the_registry_covers_the_feature_tables_by_their_schema_h_names() -> None:
    config_names = {value for name, value in vars(tables).items() if name.startswith("CFG_")}
    assert set(TABLES) <= config_names
    assert len(TABLES) == 50  # SONiC's 48, and the RoCE intent's ROCE and NOS_ROCE_SAVED (ours)
    for name in (
        "PORT",
        "VLAN_MEMBER",
        "BUFFER_PG",
        "MAP_PFC_PRIORITY_TO_QUEUE",
        "PFC_WD",
        "MCLAG_UNIQUE_IP",
    ):
        assert schema_for(name) is not None
    assert schema_for("ACL_RULE") is None


def test_references_point_at_table_names() -> None:
    config_names = {value for name, value in vars(tables).items() if name.startswith("CFG_")}
    for schema in TABLES.values():
        for shape in schema.shapes:
            targets = [part.ref for part in shape.parts if part.ref] + [
                rule.ref for rule in field_rules(shape.model).values() if rule.ref
            ]
            for target in targets:
                assert set(target.tables) <= config_names, (schema.name, target)


def test_every_declared_field_has_a_leaf_type() -> None:
    for schema in TABLES.values():
        for shape in schema.shapes:
            assert issubclass(shape.model, MapRow) or field_rules(shape.model) is not None
            for rule in field_rules(shape.model).values():
                assert isinstance(rule.leaf, Leaf), (schema.name, rule.name)


@pytest.mark.parametrize(
    ("table", "key", "model"),
    [
        ("PORT", "Ethernet0", PortRow),
        ("INTERFACE", "Ethernet0", InterfaceRow),
        ("INTERFACE", "Ethernet0|fc00::1/126", InterfaceIpRow),
        ("PFC_WD", "GLOBAL", PfcWdGlobalRow),
        ("PFC_WD", "Ethernet0", PfcWdRow),
        ("DSCP_TO_TC_MAP", "AZURE", DscpToTcMapRow),
        ("PORT_QOS_MAP", "global", PortQosMapRow),
        ("STATIC_ROUTE", "10.0.0.0/8", StaticRouteRow),
        ("STATIC_ROUTE", "Vrf_red|10.0.0.0/8", StaticRouteRow),
    ],
)
def test_row_model_follows_the_key_shape(table: str, key: str, model: type) -> None:
    assert row_model(table, key) is model


def test_malformed_or_unmodelled_keys_have_no_shape() -> None:
    assert shape_for("VLAN_MEMBER", "Vlan100") is None
    assert shape_for("ACL_RULE", "x|y") is None
    assert row_model("INTERFACE", "a|b|c") is None


def test_bool_leaf_converts() -> None:
    assert Bool().convert("true") is True and Bool(capitalised=True).convert("False") is False
    assert IndexRange(0, 7, "pg").convert("3-4") == (3, 4)
    assert Csv(Int(0, 7)).convert("3,4") == [3, 4]
    assert Text().check("anything") is None
