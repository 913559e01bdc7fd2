"""Which configuration a switch boots with (pure decision, then one file read).

Order, as on SONiC where ``/etc/sonic/config_db.json`` is both what ``config save`` writes and
what boots: an explicit ``--config FILE``; else the run directory's saved ``config_db.json`` (when
it is for the requested SKU); else the SKU's default startup config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nos.config.files import read_config_file
from nos.db.configdb import Config
from nos.platform.sku import DEFAULT_SKU, Sku, UnknownSku, list_skus, load_sku
from nos.schema.tables import CFG_DEVICE_METADATA_TABLE_NAME


class StartupError(RuntimeError):
    """Raised when the SKU and configuration to boot with cannot be decided (message says why)."""


@dataclass(frozen=True)
class Startup:
    sku: Sku
    config: Config
    source: Path
    note: str


def hwsku_of(config: Config) -> str | None:
    value = config.get(CFG_DEVICE_METADATA_TABLE_NAME, {}).get("localhost", {}).get("hwsku")
    return value if isinstance(value, str) else None


def _sku(name: str) -> Sku:
    try:
        return load_sku(name)
    except UnknownSku:
        raise StartupError(f"unknown SKU {name!r}; known SKUs: {', '.join(list_skus())}") from None


def choose_startup(sku_name: str | None, config_file: Path | None, saved_file: Path) -> Startup:
    if config_file is not None:
        config = read_config_file(config_file)
        file_sku = hwsku_of(config)
        if sku_name and file_sku and file_sku != sku_name and file_sku in list_skus():
            raise StartupError(f"--sku {sku_name} conflicts with hwsku {file_sku} in {config_file}")
        name = sku_name or (file_sku if file_sku in list_skus() else DEFAULT_SKU)
        return Startup(_sku(name), config, config_file, f"config from {config_file}")
    if saved_file.exists():
        saved = read_config_file(saved_file)
        saved_sku = hwsku_of(saved)
        if sku_name is None or saved_sku == sku_name:
            name = saved_sku if saved_sku in list_skus() else DEFAULT_SKU
            return Startup(_sku(str(name)), saved, saved_file, f"saved config {saved_file}")
        note = f"saved config {saved_file} is for {hwsku_of(saved)}, not {sku_name}: using {sku_name} defaults"
    else:
        note = ""
    sku = _sku(sku_name or DEFAULT_SKU)
    path = sku.default_config_path()
    return Startup(sku, read_config_file(path), path, note or f"{sku.name} default config")
