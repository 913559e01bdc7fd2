"""What the simulated ASIC checks of buffer objects beyond generic metadata validation (pure).

* A profile's threshold mode needs its threshold: ``THRESHOLD_MODE_DYNAMIC`` with ``SHARED_DYNAMIC_TH``,
  ``THRESHOLD_MODE_STATIC`` with ``SHARED_STATIC_TH`` (checked at create; a set changes one at a time).
* A pool cannot be larger than the ASIC's buffer (``SAI_SWITCH_ATTR_TOTAL_BUFFER_SIZE``).
* A profile cannot reserve more than its pool holds: ``RESERVED_BUFFER_SIZE`` and ``XOFF_TH`` each at most
  the pool's ``SIZE`` (plus its ``XOFF_SIZE``, the shared headroom, for ``XOFF_TH``).

Simplification, stated: the sum of the reservations of every bound PG and queue against its pool is not
checked (SAI implementations differ on whether headroom counts against the pool).
"""

from __future__ import annotations

from collections.abc import Mapping

MODE = "SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE"
NEEDS = {"SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC": "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH",
         "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC": "SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH"}
RESERVED = "SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE"
XOFF = "SAI_BUFFER_PROFILE_ATTR_XOFF_TH"


def profile_create_problem(attrs: Mapping[str, str]) -> str | None:
    """Why a new profile's threshold attributes are inconsistent, or None."""
    needed = NEEDS.get(attrs.get(MODE, ""))
    if needed is not None and needed not in attrs:
        return f"{MODE}={attrs[MODE]} needs {needed}"
    return None


def profile_pool_problem(attrs: Mapping[str, str], pool: Mapping[str, str]) -> str | None:
    """Why a profile's reservations do not fit its pool, or None."""
    size = int(pool.get("SAI_BUFFER_POOL_ATTR_SIZE", "0"))
    headroom = int(pool.get("SAI_BUFFER_POOL_ATTR_XOFF_SIZE", "0"))
    reserved = int(attrs.get(RESERVED, "0"))
    if reserved > size + headroom:
        return f"{RESERVED}={reserved} exceeds the pool's size {size + headroom}"
    xoff = int(attrs.get(XOFF, "0"))
    if xoff > size + headroom:
        return f"{XOFF}={xoff} exceeds the pool's size {size + headroom}"
    return None


def pool_problem(attrs: Mapping[str, str], mmu_size: int) -> str | None:
    """Why a new pool does not fit the ASIC's buffer (``mmu_size`` bytes, 0 = unknown), or None."""
    size = int(attrs.get("SAI_BUFFER_POOL_ATTR_SIZE", "0"))
    if mmu_size and size > mmu_size:
        return f"SAI_BUFFER_POOL_ATTR_SIZE={size} exceeds the ASIC's buffer of {mmu_size} bytes"
    return None
