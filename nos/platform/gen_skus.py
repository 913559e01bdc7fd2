"""Regenerate each SKU's generated files from its hand-written inputs: ``python -m nos.platform.gen_skus``.

Inputs per SKU folder (hand-written): ``sku.json`` (platform, MAC, port layout, port defaults, hwsku
fields, alias pattern per breakout mode), ``buffers.json``, ``asic.json``. Outputs (generated, committed):
``platform.json`` and ``hwsku.json`` in SONiC's formats, and the default startup ``config_db.json``
built by :mod:`nos.platform.defaults`. Running it twice changes nothing; ``--check`` only reports drift
(exit status 1), which is what the unit tests assert never happens.

Port layout in ``sku.json``: ``count`` cages named ``Ethernet<step*i>``, each on ``lanes_per_port``
consecutive lanes starting at ``first_lanes[i]`` (explicit lane map) or ``first_lane + lanes_per_port*i``;
front-panel index ``first_index + i``. An alias pattern may use ``{index}`` (the cage's index), ``{port}``
(the child's port number) and ``{sub}`` (a, b, c, ... by position in the mode).

admin_status (``port_fields`` in ``sku.json``): DESIGN.md is silent, so NOS-SIM-128x400G uses "up", as
SONiC's t1 preset renders a lab switch whose ports come up; Force10-S6000 keeps "down", as SONiC's
virtual-switch baseline (DVS) does, so SONiC's own test expectations hold against it.
"""

from __future__ import annotations

import argparse
import json
import string
import sys
from pathlib import Path
from typing import Any

from nos.paths import skus_dir
from nos.platform import breakout
from nos.platform.defaults import config_db_to_json, sku_to_config_db
from nos.platform.sku import (
    ASIC_FILE,
    BREAKOUT_MODES,
    BUFFERS_FILE,
    CONFIG_DB_FILE,
    DEFAULT_BRKOUT_MODE,
    HWSKU_FILE,
    INTERFACES,
    PLATFORM_FILE,
    SKU_FILE,
    JsonDict,
    Sku,
    read_json,
)

# Fields every SKU's ``port_fields`` must set (see the module docstring for the admin_status choice).
REQUIRED_PORT_FIELDS = ("mtu", "admin_status")
CHASSIS_LISTS = ("components", "fans", "fan_drawers", "psus", "thermals", "sfps")


class SkuSpecError(ValueError):
    """Raised when a hand-written ``sku.json`` is missing a field or its layout does not add up."""


def _parents(spec: JsonDict) -> list[tuple[str, list[int], int]]:
    """(name, lanes, index) of every cage in the layout."""
    layout = spec["ports"]
    count, step, width = layout["count"], layout["step"], layout["lanes_per_port"]
    firsts = layout.get("first_lanes") or [layout["first_lane"] + width * i for i in range(count)]
    if len(firsts) != count:
        raise SkuSpecError(f"first_lanes has {len(firsts)} entries for {count} ports")
    return [
        (f"{breakout.PORT_PREFIX}{step * i}", list(range(first, first + width)), layout["first_index"] + i)
        for i, first in enumerate(firsts)
    ]


def _aliases(pattern: str, parent: str, width: int, mode: str, index: int) -> list[str]:
    names = breakout.child_names(parent, width, mode)
    return [
        pattern.format(index=index, port=breakout.port_number(name), sub=string.ascii_lowercase[pos])
        for pos, name in enumerate(names)
    ]


def platform_json_from_spec(name: str, spec: JsonDict) -> JsonDict:
    """SONiC's platform.json for the SKU: one interface per cage with its breakout modes."""
    interfaces: JsonDict = {}
    for parent, lanes, index in _parents(spec):
        modes = {
            mode: _aliases(pattern, parent, len(lanes), mode, index)
            for mode, pattern in spec["breakout_aliases"].items()
        }
        interfaces[parent] = {
            "index": ",".join([str(index)] * len(lanes)),
            "lanes": ",".join(str(lane) for lane in lanes),
            BREAKOUT_MODES: modes,
        }
    chassis: dict[str, Any] = {"name": name, **{key: [] for key in CHASSIS_LISTS}}
    return {"chassis": chassis, INTERFACES: interfaces}


def hwsku_json_from_spec(spec: JsonDict) -> JsonDict:
    """SONiC's hwsku.json for the SKU: the same default mode and optional fields for every cage."""
    fields = spec["hwsku_fields"]
    if DEFAULT_BRKOUT_MODE not in fields or fields[DEFAULT_BRKOUT_MODE] not in spec["breakout_aliases"]:
        raise SkuSpecError(f"hwsku_fields.{DEFAULT_BRKOUT_MODE} must be one of the breakout_aliases modes")
    return {INTERFACES: {parent: dict(fields) for parent, _, _ in _parents(spec)}}


def _check_spec(spec: JsonDict) -> None:
    missing = [f for f in REQUIRED_PORT_FIELDS if f not in spec.get("port_fields", {})]
    missing += [f for f in ("platform", "mac", "ports", "hwsku_fields", "breakout_aliases") if f not in spec]
    if missing:
        raise SkuSpecError(f"{SKU_FILE} lacks {', '.join(missing)}")


def _json_text(data: JsonDict) -> str:
    return json.dumps(data, indent=4) + "\n"


def render_sku(path: Path) -> dict[Path, str]:
    """The generated files of the SKU folder ``path`` and their text (reads only the inputs)."""
    spec = read_json(path / SKU_FILE)
    _check_spec(spec)
    sku = Sku(
        name=path.name,
        platform=spec["platform"],
        path=path,
        platform_json=platform_json_from_spec(path.name, spec),
        hwsku_json=hwsku_json_from_spec(spec),
        asic=read_json(path / ASIC_FILE),
        spec=spec,
        buffers=read_json(path / BUFFERS_FILE),
    )
    return {
        path / PLATFORM_FILE: _json_text(sku.platform_json),
        path / HWSKU_FILE: _json_text(sku.hwsku_json),
        path / CONFIG_DB_FILE: config_db_to_json(sku_to_config_db(sku)),
    }


def render_all(root: Path) -> dict[Path, str]:
    """The generated files of every SKU folder (one with a ``sku.json``) under ``root``."""
    files: dict[Path, str] = {}
    for folder in sorted(p for p in root.iterdir() if (p / SKU_FILE).is_file()):
        files.update(render_sku(folder))
    return files


def stale_files(files: dict[Path, str]) -> list[Path]:
    """The files whose content on disk differs from ``files`` (or that do not exist)."""
    return [p for p, text in files.items() if not p.is_file() or p.read_text() != text]


def write_files(files: dict[Path, str]) -> list[Path]:
    """Write the files that changed; returns them."""
    changed = stale_files(files)
    for path in changed:
        path.write_text(files[path])
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nos.platform.gen_skus", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="report drift, write nothing (exit 1 on drift)")
    parser.add_argument("--root", type=Path, default=None, help="SKU folder root (default: configs/skus)")
    args = parser.parse_args(argv)
    files = render_all(args.root or skus_dir())
    changed = stale_files(files) if args.check else write_files(files)
    for path in changed:
        print(f"{'stale' if args.check else 'wrote'} {path}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
