"""SKU folders: loading, default ports, breakout per SKU, pg lookup, ASIC constants, generated files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nos.paths import skus_dir
from nos.platform import gen_skus
from nos.platform.breakout import InvalidBreakoutMode, parse_mode, port_number
from nos.platform.sku import (
    DEFAULT_SKU,
    Sku,
    SkuDataError,
    UnknownPort,
    UnknownSku,
    list_skus,
    load_sku,
    parse_pg_profile_lookup,
)

S6000 = "Force10-S6000"
SKUS = [DEFAULT_SKU, S6000]

# SONiC's Force10-S6000 lane map: first lane of Ethernet0, Ethernet4, ... (each port has 4 consecutive lanes).
# fmt: off
S6000_FIRST_LANES = [25, 29, 33, 37, 45, 41, 1, 5, 13, 9, 17, 21, 53, 49, 57, 61,
                     69, 65, 73, 77, 109, 105, 113, 117, 125, 121, 81, 85, 93, 89, 101, 97]
# fmt: on


@pytest.fixture(scope="module")
def big() -> Sku:
    return load_sku(DEFAULT_SKU)


@pytest.fixture(scope="module")
def vs() -> Sku:
    return load_sku(S6000)


def test_list_skus() -> None:
    assert set(SKUS) <= set(list_skus())
    assert list_skus() == sorted(list_skus())


def test_unknown_sku() -> None:
    with pytest.raises(UnknownSku):
        load_sku("No-Such-SKU")


def test_loaded_metadata(big: Sku, vs: Sku) -> None:
    assert (big.name, big.platform) == (DEFAULT_SKU, "x86_64-nos_sim-r0")
    assert (vs.name, vs.platform) == (S6000, "x86_64-kvm_x86_64-r0")
    assert big.path == skus_dir() / DEFAULT_SKU
    assert big.default_config_path() == big.path / "config_db.json"


def test_default_ports_400g(big: Sku) -> None:
    ports = big.default_ports()
    assert list(ports) == [f"Ethernet{4 * i}" for i in range(128)]
    assert ports["Ethernet0"] == {
        "alias": "etp1",
        "lanes": "0,1,2,3",
        "index": "1",
        "speed": "400000",
        "fec": "rs",
        "mtu": "9100",
        "admin_status": "up",
        "autoneg": "off",
    }
    assert ports["Ethernet508"]["lanes"] == "508,509,510,511"
    assert ports["Ethernet508"]["alias"] == "etp128"
    for name, row in ports.items():
        n = port_number(name)
        assert row["lanes"] == ",".join(str(lane) for lane in range(n, n + 4))
        assert row["alias"] == f"etp{n // 4 + 1}"
        assert row["index"] == str(n // 4 + 1)


def test_default_ports_s6000(vs: Sku) -> None:
    ports = vs.default_ports()
    assert list(ports) == [f"Ethernet{4 * i}" for i in range(32)]
    for i, (name, row) in enumerate(ports.items()):
        first = S6000_FIRST_LANES[i]
        assert row == {
            "alias": f"fortyGigE0/{4 * i}",
            "lanes": f"{first},{first + 1},{first + 2},{first + 3}",
            "index": str(i),
            "speed": "100000",
            "mtu": "9100",
            "admin_status": "down",
        }, name


def test_platform_json_entry_400g(big: Sku) -> None:
    assert big.platform_json["interfaces"]["Ethernet4"] == {
        "index": "2,2,2,2",
        "lanes": "4,5,6,7",
        "breakout_modes": {
            "1x400G[200G,100G]": ["etp2"],
            "2x200G": ["etp2a", "etp2b"],
            "4x100G": ["etp2a", "etp2b", "etp2c", "etp2d"],
        },
    }
    assert big.hwsku_json["interfaces"]["Ethernet4"] == {
        "default_brkout_mode": "1x400G[200G,100G]",
        "fec": "rs",
        "autoneg": "off",
    }
    assert big.platform_json["chassis"]["name"] == DEFAULT_SKU


def test_platform_json_entry_s6000(vs: Sku) -> None:
    assert vs.breakout_modes("Ethernet8") == {
        "1x100G[40G]": ["fortyGigE0/8"],
        "2x50G": ["fortyGigE0/8", "fortyGigE0/10"],
        "4x25G[10G]": ["fortyGigE0/8", "fortyGigE0/9", "fortyGigE0/10", "fortyGigE0/11"],
    }
    assert vs.hwsku_json["interfaces"]["Ethernet8"] == {"default_brkout_mode": "1x100G[40G]"}


def test_400g_4x100g(big: Sku) -> None:
    rows = big.ports_for_mode("Ethernet0", "4x100G")
    assert list(rows) == ["Ethernet0", "Ethernet1", "Ethernet2", "Ethernet3"]
    for i, row in enumerate(rows.values()):
        assert row["lanes"] == str(i)
        assert row["speed"] == "100000"
        assert row["alias"] == f"etp1{'abcd'[i]}"
        assert row["subport"] == str(i + 1)
        assert row["index"] == "1"
        assert row["fec"] == "rs"


def test_400g_2x200g(big: Sku) -> None:
    rows = big.ports_for_mode("Ethernet0", "2x200G")
    assert {n: (r["lanes"], r["speed"], r["alias"]) for n, r in rows.items()} == {
        "Ethernet0": ("0,1", "200000", "etp1a"),
        "Ethernet2": ("2,3", "200000", "etp1b"),
    }


def test_s6000_breakouts(vs: Sku) -> None:
    two = vs.ports_for_mode("Ethernet0", "2x50G")
    assert {n: (r["lanes"], r["speed"], r["alias"]) for n, r in two.items()} == {
        "Ethernet0": ("25,26", "50000", "fortyGigE0/0"),
        "Ethernet2": ("27,28", "50000", "fortyGigE0/2"),
    }
    four = vs.ports_for_mode("Ethernet124", "4x25G[10G]")
    assert {n: (r["lanes"], r["speed"], r["index"]) for n, r in four.items()} == {
        f"Ethernet{124 + i}": (str(97 + i), "25000", "31") for i in range(4)
    }
    assert all("fec" not in r for r in (*two.values(), *four.values()))


@pytest.mark.parametrize("name", SKUS)
def test_every_mode_of_every_port_expands(name: str) -> None:
    sku = load_sku(name)
    for parent in sku.parents():
        entry = sku.platform_json["interfaces"][parent]
        parent_lanes = entry["lanes"].split(",")
        for mode, aliases in sku.breakout_modes(parent).items():
            rows = sku.ports_for_mode(parent, mode)
            (group,) = parse_mode(mode).groups
            width = len(parent_lanes) // group.num_ports
            assert list(rows) == [
                f"Ethernet{port_number(parent) + width * i}" for i in range(group.num_ports)
            ]
            assert [r["alias"] for r in rows.values()] == aliases
            assert sum((r["lanes"].split(",") for r in rows.values()), []) == parent_lanes
            assert {r["speed"] for r in rows.values()} == {str(group.default_speed)}
            assert all(sku.parent_of(child) == parent for child in rows)


def test_modes_not_offered_raise(big: Sku, vs: Sku) -> None:
    for sku, parent, mode in [
        (big, "Ethernet0", "8x50G"),
        (big, "Ethernet0", "1x400G"),
        (big, "Ethernet0", "1x100G[40G]"),
        (vs, "Ethernet0", "4x100G"),
        (vs, "Ethernet0", "1x100G"),
        (big, "Ethernet0", "nonsense"),
    ]:
        with pytest.raises(InvalidBreakoutMode):
            sku.ports_for_mode(parent, mode)


def test_equivalent_spelling_of_an_offered_mode_is_accepted(big: Sku) -> None:
    rows = big.ports_for_mode("Ethernet4", "1x400G[100G,200G]")
    assert rows["Ethernet4"]["alias"] == "etp2"


def test_unknown_parent(big: Sku) -> None:
    with pytest.raises(UnknownPort):
        big.ports_for_mode("Ethernet1", "4x100G")
    with pytest.raises(UnknownPort):
        big.breakout_modes("Ethernet512")


def test_parent_of(big: Sku, vs: Sku) -> None:
    assert big.parent_of("Ethernet0") == "Ethernet0"
    assert big.parent_of("Ethernet3") == "Ethernet0"
    assert big.parent_of("Ethernet510") == "Ethernet508"
    assert vs.parent_of("Ethernet2") == "Ethernet0"
    assert vs.parent_of("Ethernet127") == "Ethernet124"
    for port in ("Ethernet512", "PortChannel1", "Ethernet", "etp1"):
        assert big.parent_of(port) is None


def test_pg_profile_lookup_400g(big: Sku) -> None:
    rows = {(r.speed, r.cable): r for r in big.pg_profile_lookup()}
    assert set(rows) == {(s, c) for s in (400_000, 200_000, 100_000) for c in ("5m", "40m", "150m", "300m")}
    for cable in ("5m", "150m"):  # SONiC's own rows
        r = rows[(400_000, cable)]
        assert (r.size, r.xon, r.xoff, r.threshold, r.xon_offset) == ("18796", "0", "612140", "0", "3556")
    for (speed, cable), r in rows.items():  # the project's derivation rule (see the .ini header)
        length = int(cable.removesuffix("m"))
        extra = math.ceil(2 * max(0, length - 150) * speed * 1e6 / 1.98e8 / 8 / 1024) * 1024
        assert int(r.xoff) == 612140 + extra
        assert (r.size, r.xon, r.threshold, r.xon_offset) == ("18796", "0", "0", "3556")


def test_pg_profile_lookup_s6000(vs: Sku) -> None:
    rows = vs.pg_profile_lookup()
    assert {(r.speed, r.cable) for r in rows} == {
        (s, c) for s in (10_000, 25_000, 40_000, 50_000, 100_000) for c in ("5m", "40m", "300m")
    }
    assert {(r.size, r.xon, r.xoff, r.threshold, r.xon_offset) for r in rows} == {
        ("56368", "18432", "55120", "-3", "2496")
    }


def test_parse_pg_profile_lookup() -> None:
    rows = parse_pg_profile_lookup("# speed cable size xon xoff threshold\n\n 40000 5m 1 2 3 4 # c\n")
    assert [(r.speed, r.cable, r.xoff, r.xon_offset) for r in rows] == [(40000, "5m", "3", None)]
    for bad in ("40000 5m 1 2 3\n", "speed 5m 1 2 3 4\n", "1 2 3 4 5 6 7 8\n"):
        with pytest.raises(SkuDataError):
            parse_pg_profile_lookup(bad)


def test_asic_constants(big: Sku, vs: Sku) -> None:
    keys = {
        "vendor",
        "cell_size",
        "mmu_size_bytes",
        "queues_per_port",
        "priority_groups_per_port",
        "cut_through_latency_ns",
        "max_headroom_size",
    }
    assert keys <= set(big.asic) and keys <= set(vs.asic)
    assert (vs.asic["vendor"], vs.asic["cell_size"], vs.asic["mmu_size_bytes"]) == ("vs", 144, 12766208)
    assert (big.asic["vendor"], big.asic["cell_size"]) == ("nos-sim", 254)
    pool = big.buffers["BUFFER_POOL"]["ingress_lossless_pool"]
    assert big.asic["mmu_size_bytes"] == math.ceil((int(pool["size"]) + int(pool["xoff"])) / 1024) * 1024
    for sku in (big, vs):
        assert sku.asic["queues_per_port"] == sku.asic["priority_groups_per_port"] == 8
        assert sku.asic["mmu_size_bytes"] % 1024 == 0  # SAI reports the total buffer in KB
    # Rule in configs/skus/README.md: 2 lossless PGs x (largest size + xoff), rounded up to 1 KiB; the vs
    # SKU reports none (0), as SONiC's virtual-switch SAI does not.
    worst = max(int(r.size) + int(r.xoff) for r in big.pg_profile_lookup())
    assert big.asic["max_headroom_size"] == math.ceil(2 * worst / 1024) * 1024
    assert vs.asic["max_headroom_size"] == 0


def test_s6000_zero_profiles(vs: Sku) -> None:
    profiles = json.loads((vs.path / "zero_profiles.json").read_text())["BUFFER_PROFILE"]
    assert set(profiles) == {
        "ingress_lossy_pg_zero_profile",
        "egress_lossy_zero_profile",
        "egress_lossless_zero_profile",
    }
    pools = vs.buffers["BUFFER_POOL"]
    for row in profiles.values():
        assert row["size"] == "0"
        # The threshold kind matches the pool's mode, as SAI requires.
        kind = "dynamic_th" if pools[row["pool"]]["mode"] == "dynamic" else "static_th"
        assert set(row) == {"pool", "size", kind}


def test_generated_files_match_gen_skus() -> None:
    files = gen_skus.render_all(skus_dir())
    assert {p.name for p in files} == {"platform.json", "hwsku.json", "config_db.json"}
    assert len(files) == 3 * len(list_skus())
    assert gen_skus.stale_files(files) == [], "run: python -m nos.platform.gen_skus"
    assert gen_skus.main(["--check"]) == 0


def test_gen_skus_is_idempotent(tmp_path: Path) -> None:
    src = skus_dir() / S6000
    dst = tmp_path / S6000
    dst.mkdir()
    for name in ("sku.json", "buffers.json", "asic.json"):
        (dst / name).write_text((src / name).read_text())
    assert gen_skus.main(["--root", str(tmp_path), "--check"]) == 1
    assert gen_skus.main(["--root", str(tmp_path)]) == 0
    first = {p.name: p.read_text() for p in dst.iterdir()}
    assert gen_skus.write_files(gen_skus.render_all(tmp_path)) == []
    assert {p.name: p.read_text() for p in dst.iterdir()} == first
    assert first["config_db.json"] == (src / "config_db.json").read_text()
