"""SONiC breakout-mode grammar and child-port expansion (nos.platform.breakout)."""

from __future__ import annotations

import pytest

from nos.platform.breakout import (
    BreakoutGroup,
    ChildPort,
    InvalidBreakoutMode,
    child_names,
    expand,
    match_mode,
    mode_speeds,
    parse_mode,
    port_number,
    same_mode,
)


def test_parse_single_group() -> None:
    assert parse_mode("4x100G").groups == (BreakoutGroup(4, 100_000, frozenset({100_000}), None),)


def test_parse_alternate_speeds() -> None:
    (group,) = parse_mode("1x400G[200G,100G]").groups
    assert group.num_ports == 1
    assert group.default_speed == 400_000
    assert group.speeds == {400_000, 200_000, 100_000}
    assert group.num_lanes is None


def test_parse_mixed_groups_with_lane_counts() -> None:
    mode = parse_mode("2x25G(2)+1x50G(2)")
    assert mode.groups == (
        BreakoutGroup(2, 25_000, frozenset({25_000}), 2),
        BreakoutGroup(1, 50_000, frozenset({50_000}), 2),
    )
    assert mode.num_ports == 3


def test_parse_speed_without_g_suffix_is_in_g() -> None:
    # SONiC's regex makes the G optional and always reads the number as Gb/s.
    assert parse_mode("2x50").groups[0].default_speed == 50_000


def test_parse_alternates_and_lanes_together() -> None:
    (group,) = parse_mode("2x50G[25G,10G](4)").groups
    assert group.speeds == {50_000, 25_000, 10_000}
    assert group.num_lanes == 4


@pytest.mark.parametrize(
    "mode",
    [
        "",
        "x100G",
        "4x",
        "4x100G[]",
        "4x100G+",
        "+4x100G",
        "0x100G",
        "4x0G",
        "4x100G(0)",
        "4x100Gfoo",
        "abc",
        "4x100G[40G,]",
        "4x100G (4)",
        "1x1234567G",
        "4X100G",
    ],
)
def test_parse_rejects_malformed_modes(mode: str) -> None:
    with pytest.raises(InvalidBreakoutMode):
        parse_mode(mode)


def test_mode_speeds_per_group() -> None:
    assert mode_speeds("1x100G[40G]") == (frozenset({100_000, 40_000}),)
    assert mode_speeds("2x25G(2)+1x50G[40G](2)") == (frozenset({25_000}), frozenset({50_000, 40_000}))
    assert mode_speeds(parse_mode("4x25G[10G]")) == (frozenset({25_000, 10_000}),)


def test_same_mode_ignores_alternate_order_but_not_alternates() -> None:
    assert same_mode("1x400G[200G,100G]", "1x400G[100G,200G]")
    assert not same_mode("1x400G[200G,100G]", "1x400G")
    assert not same_mode("2x25G(2)+1x50G(2)", "1x50G(2)+2x25G(2)")


def test_match_mode_returns_the_offered_spelling() -> None:
    offered = ["1x400G[200G,100G]", "2x200G", "4x100G"]
    assert match_mode("1x400G[100G,200G]", offered) == "1x400G[200G,100G]"
    assert match_mode("4x100G", offered) == "4x100G"
    with pytest.raises(InvalidBreakoutMode):
        match_mode("8x50G", offered)
    with pytest.raises(InvalidBreakoutMode):
        match_mode("1x400G", offered)


def test_port_number() -> None:
    assert port_number("Ethernet508") == 508
    for bad in ("Ethernet", "PortChannel1", "ethernet0", "Ethernet1a"):
        with pytest.raises(ValueError):
            port_number(bad)


LANES = (0, 1, 2, 3)
INDEX = (1, 1, 1, 1)


def test_expand_4x100g() -> None:
    children = expand("Ethernet0", LANES, INDEX, "4x100G", ["etp1a", "etp1b", "etp1c", "etp1d"])
    assert children == [
        ChildPort(f"Ethernet{i}", (i,), f"etp1{'abcd'[i]}", 1, 100_000, i + 1, "rs") for i in range(4)
    ]


def test_expand_2x200g() -> None:
    children = expand("Ethernet0", LANES, INDEX, "2x200G", ["etp1a", "etp1b"])
    assert children == [
        ChildPort("Ethernet0", (0, 1), "etp1a", 1, 200_000, 1, "rs"),
        ChildPort("Ethernet2", (2, 3), "etp1b", 1, 200_000, 2, "rs"),
    ]


def test_expand_single_port_has_subport_zero() -> None:
    (child,) = expand("Ethernet4", (4, 5, 6, 7), (2, 2, 2, 2), "1x400G[200G,100G]", ["etp2"])
    assert child == ChildPort("Ethernet4", (4, 5, 6, 7), "etp2", 2, 400_000, 0, "rs")


def test_expand_names_from_parent_base_not_lane_numbers() -> None:
    children = expand("Ethernet16", (45, 46, 47, 48), (4, 4, 4, 4), "2x50G", ["a", "b"])
    assert [(c.name, c.lanes, c.fec) for c in children] == [
        ("Ethernet16", (45, 46), None),
        ("Ethernet18", (47, 48), None),
    ]


def test_expand_mixed_groups() -> None:
    children = expand("Ethernet8", (8, 9, 10, 11), (3, 3, 3, 3), "2x25G(2)+1x50G(2)", ["x", "y", "z"])
    assert [(c.name, c.lanes, c.speed, c.subport, c.alias) for c in children] == [
        ("Ethernet8", (8,), 25_000, 1, "x"),
        ("Ethernet9", (9,), 25_000, 2, "y"),
        ("Ethernet10", (10, 11), 50_000, 3, "z"),
    ]


def test_expand_index_comes_from_first_lane() -> None:
    children = expand("Ethernet0", LANES, (7, 7, 8, 8), "2x200G", ["a", "b"])
    assert [c.index for c in children] == [7, 8]


def test_expand_group_may_use_fewer_lanes_than_the_port() -> None:
    (child,) = expand("Ethernet0", LANES, INDEX, "1x50G(2)", ["a"])
    assert child.lanes == (0, 1)


@pytest.mark.parametrize(
    ("mode", "fec"),
    [("1x100G", None), ("2x100G", "rs"), ("4x25G", None), ("1x200G", "rs"), ("4x50G", "rs")],
)
def test_rs_fec_from_speed_per_lane(mode: str, fec: str | None) -> None:
    n = parse_mode(mode).num_ports
    assert {c.fec for c in expand("Ethernet0", LANES, INDEX, mode, ["a"] * n)} == {fec}


@pytest.mark.parametrize("mode", ["3x100G", "8x50G", "2x50G(4)+1x100G(4)", "1x100G(5)", "3x25G(2)"])
def test_expand_rejects_modes_that_do_not_fit(mode: str) -> None:
    with pytest.raises(InvalidBreakoutMode):
        expand("Ethernet0", LANES, INDEX, mode, ["a"] * 8)


def test_expand_rejects_wrong_alias_count() -> None:
    with pytest.raises(InvalidBreakoutMode):
        expand("Ethernet0", LANES, INDEX, "2x200G", ["etp1a"])


def test_expand_rejects_inconsistent_parent() -> None:
    with pytest.raises(ValueError):
        expand("Ethernet0", LANES, (1, 1), "4x100G", ["a", "b", "c", "d"])
    with pytest.raises(ValueError):
        expand("Eth0", LANES, INDEX, "4x100G", ["a", "b", "c", "d"])


def test_child_names() -> None:
    assert child_names("Ethernet124", 4, "4x25G[10G]") == [f"Ethernet{n}" for n in range(124, 128)]
    assert child_names("Ethernet0", 8, "2x400G") == ["Ethernet0", "Ethernet4"]
