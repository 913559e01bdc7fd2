"""Load a SKU folder under ``configs/skus/`` and answer questions about its ports.

A SKU folder holds SONiC's ``platform.json`` and ``hwsku.json`` (generated), the hand-written
``sku.json`` (platform name, MAC, port defaults, port layout), ``buffers.json`` (pools and profiles,
as the SKU's ``buffers_defaults_t1.j2`` sets them), ``pg_profile_lookup.ini``, ``asic.json`` (ASIC
constants) and the default startup ``config_db.json`` (generated). ``configs/skus/README.md``
describes each file. Reading happens in :func:`load_sku`; the :class:`Sku` methods other than
:meth:`Sku.pg_profile_lookup` and :meth:`Sku.default_config` compute from the loaded data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nos.paths import skus_dir
from nos.platform import breakout

DEFAULT_SKU = "NOS-SIM-128x400G"

SKU_FILE = "sku.json"
PLATFORM_FILE = "platform.json"
HWSKU_FILE = "hwsku.json"
ASIC_FILE = "asic.json"
BUFFERS_FILE = "buffers.json"
PG_LOOKUP_FILE = "pg_profile_lookup.ini"
CONFIG_DB_FILE = "config_db.json"

INTERFACES = "interfaces"
BREAKOUT_MODES = "breakout_modes"
DEFAULT_BRKOUT_MODE = "default_brkout_mode"
# hwsku.json fields that SONiC copies onto the ports of a cage (portconfig.py OPTIONAL_HWSKU_ATTRIBUTES).
HWSKU_PORT_FIELDS = ("fec", "autoneg", "role")

PortRow = dict[str, str]
JsonDict = dict[str, Any]


class UnknownSku(LookupError):
    """Raised by :func:`load_sku` when ``configs/skus/`` has no folder of that name."""


class UnknownPort(LookupError):
    """Raised when a parent port is not one of the SKU's ``platform.json`` interfaces."""


class SkuDataError(ValueError):
    """Raised when a SKU file is malformed (for example a ``pg_profile_lookup.ini`` row)."""


@dataclass(frozen=True)
class PgLookupRow:
    """One ``pg_profile_lookup.ini`` row; the values stay strings, as buffermgrd writes them to CONFIG_DB."""

    speed: int
    cable: str
    size: str
    xon: str
    xoff: str
    threshold: str
    xon_offset: str | None


@dataclass(frozen=True)
class Sku:
    """One SKU's data. ``spec`` is ``sku.json``, ``buffers`` is ``buffers.json``."""

    name: str
    platform: str
    path: Path
    platform_json: JsonDict
    hwsku_json: JsonDict
    asic: JsonDict
    spec: JsonDict
    buffers: JsonDict

    def parents(self) -> list[str]:
        """The cages (platform.json interfaces), in port-number order."""
        return sorted(self.platform_json[INTERFACES], key=breakout.port_number)

    def _parent(self, parent: str) -> JsonDict:
        try:
            entry: JsonDict = self.platform_json[INTERFACES][parent]
        except KeyError:
            raise UnknownPort(f"{self.name}: no port {parent!r} in platform.json") from None
        return entry

    def default_mode(self, parent: str) -> str:
        """The parent's ``default_brkout_mode`` from hwsku.json."""
        self._parent(parent)
        mode: str = self.hwsku_json[INTERFACES][parent][DEFAULT_BRKOUT_MODE]
        return mode

    def breakout_modes(self, parent: str) -> dict[str, list[str]]:
        """The modes platform.json offers for ``parent``, each with its child aliases."""
        modes: dict[str, list[str]] = self._parent(parent)[BREAKOUT_MODES]
        return {mode: list(aliases) for mode, aliases in modes.items()}

    def expand(self, parent: str, mode: str) -> list[breakout.ChildPort]:
        """The child ports of ``parent`` under ``mode``; raises InvalidBreakoutMode if not offered."""
        entry = self._parent(parent)
        offered = breakout.match_mode(mode, entry[BREAKOUT_MODES])
        return breakout.expand(
            parent,
            _int_list(entry["lanes"]),
            _int_list(entry["index"]),
            offered,
            entry[BREAKOUT_MODES][offered],
        )

    def ports_for_mode(self, parent: str, mode: str) -> dict[str, PortRow]:
        """CONFIG_DB PORT rows for ``parent`` broken out as ``mode``.

        Fields: alias, lanes, index, speed, the SKU's port defaults (mtu, admin_status), the hwsku.json
        fields SONiC copies (fec, autoneg, role), ``fec`` "rs" from the lane-speed rule when hwsku.json
        gives none, and ``subport`` only when the mode makes more than one port.
        """
        children = self.expand(parent, mode)
        copied = {k: v for k, v in self.hwsku_json[INTERFACES][parent].items() if k in HWSKU_PORT_FIELDS}
        rows: dict[str, PortRow] = {}
        for child in children:
            row = {
                "alias": child.alias,
                "lanes": ",".join(str(lane) for lane in child.lanes),
                "index": str(child.index),
                "speed": str(child.speed),
                **self.spec["port_fields"],
                **copied,
            }
            if child.fec is not None:
                row.setdefault("fec", child.fec)
            if child.subport:
                row["subport"] = str(child.subport)
            rows[child.name] = row
        return rows

    def default_ports(self) -> dict[str, PortRow]:
        """PORT rows of every cage in its default breakout mode, in port-number order."""
        rows: dict[str, PortRow] = {}
        for parent in self.parents():
            rows.update(self.ports_for_mode(parent, self.default_mode(parent)))
        return rows

    def parent_of(self, port: str) -> str | None:
        """The cage that ``port`` (a parent or a child of any offered mode) belongs to, else None."""
        try:
            number = breakout.port_number(port)
        except ValueError:
            return None
        for parent in self.parents():
            entry = self._parent(parent)
            base, width = breakout.port_number(parent), len(_int_list(entry["lanes"]))
            if base <= number < base + width:
                names = (breakout.child_names(parent, width, mode) for mode in entry[BREAKOUT_MODES])
                return parent if any(port in n for n in names) else None
        return None

    def pg_profile_lookup(self) -> list[PgLookupRow]:
        """The rows of the SKU's ``pg_profile_lookup.ini``."""
        return parse_pg_profile_lookup((self.path / PG_LOOKUP_FILE).read_text())

    def default_config_path(self) -> Path:
        """Where the SKU's default startup config_db.json lives."""
        return self.path / CONFIG_DB_FILE

    def default_config(self) -> JsonDict:
        """The parsed default startup config_db.json."""
        return read_json(self.default_config_path())


def _int_list(text: str) -> list[int]:
    return [int(item) for item in text.split(",")]


def parse_pg_profile_lookup(text: str) -> list[PgLookupRow]:
    """Parse SONiC's ``speed cable size xon xoff threshold [xon_offset]`` lines; ``#`` starts a comment."""
    rows: list[PgLookupRow] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) not in (6, 7) or not fields[0].isdecimal():
            raise SkuDataError(f"{PG_LOOKUP_FILE} line {number}: {line!r}")
        offset = fields[6] if len(fields) == 7 else None
        rows.append(
            PgLookupRow(int(fields[0]), fields[1], fields[2], fields[3], fields[4], fields[5], offset)
        )
    return rows


def read_json(path: Path) -> JsonDict:
    """Read one JSON object from ``path``."""
    data: JsonDict = json.loads(path.read_text())
    return data


def list_skus() -> list[str]:
    """Names of the SKU folders under ``configs/skus/`` (those with a ``sku.json``), sorted."""
    root = skus_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / SKU_FILE).is_file())


def load_sku(name: str) -> Sku:
    """Read the SKU folder ``configs/skus/<name>``; raises UnknownSku if there is none."""
    path = skus_dir() / name
    if not (path / SKU_FILE).is_file():
        raise UnknownSku(f"no SKU {name!r} under {skus_dir()} (known: {', '.join(list_skus()) or 'none'})")
    spec = read_json(path / SKU_FILE)
    return Sku(
        name=name,
        platform=spec["platform"],
        path=path,
        platform_json=read_json(path / PLATFORM_FILE),
        hwsku_json=read_json(path / HWSKU_FILE),
        asic=read_json(path / ASIC_FILE),
        spec=spec,
        buffers=read_json(path / BUFFERS_FILE),
    )
