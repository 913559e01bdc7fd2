"""Where the project's data files live (the ``configs/`` folder beside the packages).

``NOS_CONFIGS_DIR`` overrides the location, for installs that keep the data elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path


def configs_dir() -> Path:
    """The folder holding database_config.json and the SKUs."""
    override = os.environ.get("NOS_CONFIGS_DIR")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "configs"


def skus_dir() -> Path:
    """The folder holding one sub-folder per SKU."""
    return configs_dir() / "skus"
