"""The dynamic buffer model's APPL_DB content, computed from CONFIG_DB and STATE_DB (pure), after swss
cfgmgr/buffermgrdyn.cpp.

* Admin-up port: ``BUFFER_PG|<port>|<range>`` with profile ``NULL`` gets the generated lossless profile
  ``pg_lossless_<speed>_<cable>[_mtu<mtu>]_profile`` (``buffer_headroom.compute_headroom``; speed is the
  largest of ``adv_speeds`` when ``autoneg`` is on; ``dynamic_th`` = DEFAULT_LOSSLESS_BUFFER_PARAMETER
  ``default_dynamic_th``); other PGs, queues and profile lists are copied. A port whose lossless PGs would
  reserve more than its STATE_DB ``BUFFER_MAX_PARAM_TABLE`` ``max_headroom_size`` (absent or 0: not
  reported by the ASIC, no limit, as buffer_check_headroom_*.lua) is refused: its lossless
  PGs keep what APPL_DB had (nothing, for a new PG) and the error names the PG, the size and the limit.
* Admin-down port (buffer reclaimed with the zero profiles): lossless PGs are removed, lossy PGs get
  ``ingress_lossy_pg_zero_profile``, queues of a profile in ``egress_lossless_pool`` get
  ``egress_lossless_zero_profile``, the other configured queues and every unconfigured queue up to
  ``max_queues`` get ``egress_lossy_zero_profile`` (unconfigured indexes as contiguous ranges).
* Profiles: CONFIG_DB's (not those with ``headroom_type`` dynamic, which are inputs), the generated ones
  in use, and the zero profiles. A generated profile nobody uses is gone.
* Pools: a pool with ``size`` keeps it; a pool without one gets the ASIC buffer (``mmu_size``) less what
  the PGs (ingress) or queues (egress) of every port reserve, shared equally by the sized-less pools of
  that direction (times ``percentage`` / 100 when set). With an ``over_subscribe_ratio`` and no configured
  ``xoff``, ingress_lossless_pool's shared headroom ``xoff`` = the lossless PGs' xoff sum / ratio.

Simplifications, stated: multi-port keys (``Ethernet0,Ethernet4|3-4``) are split per port; a profile
with ``headroom_type`` dynamic is not turned into a ``_th<n>`` profile; no gearbox delays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nos.cfgmgr import buffer_headroom as hr
from nos.cfgmgr.buffer_lossless import INGRESS_LOSSLESS_POOL, dynamic_profile_name

Rows = dict[str, dict[str, str]]
ZERO_PG = "ingress_lossy_pg_zero_profile"
ZERO_LOSSY_QUEUE = "egress_lossy_zero_profile"
ZERO_LOSSLESS_QUEUE = "egress_lossless_zero_profile"
EGRESS_LOSSLESS_POOL = "egress_lossless_pool"
NULL_PROFILE = "NULL"
POOL, PROFILE, PG, QUEUE, INGRESS_LIST, EGRESS_LIST = "pool", "profile", "pg", "queue", "ingress", "egress"


@dataclass
class DynInputs:
    """Everything the plan reads: CONFIG_DB rows (keys with ``|``), STATE_DB values, SKU data."""

    pools: Rows = field(default_factory=dict)
    profiles: Rows = field(default_factory=dict)
    pgs: Rows = field(default_factory=dict)
    queues: Rows = field(default_factory=dict)
    ingress_lists: Rows = field(default_factory=dict)
    egress_lists: Rows = field(default_factory=dict)
    ports: Rows = field(default_factory=dict)
    cables: dict[str, str] = field(default_factory=dict)
    default_th: str = "0"
    over_subscribe_ratio: int = 0
    pattern: hr.TrafficPattern = field(default_factory=hr.TrafficPattern)
    asic: hr.AsicConstants | None = None
    max_params: Rows = field(default_factory=dict)  # STATE_DB BUFFER_MAX_PARAM_TABLE by port (and global)
    zero_profiles: Rows = field(default_factory=dict)
    previous_pgs: Rows = field(default_factory=dict)  # APPL_DB BUFFER_PG_TABLE as last written


@dataclass
class DynPlan:
    """APPL_DB rows by kind (keys with ``:``) and the refusals by (CONFIG_DB table kind, key)."""

    rows: dict[str, Rows]
    errors: dict[tuple[str, str], str]


def _split(key: str) -> list[tuple[str, str]]:
    ports, _, index = key.rpartition("|")
    return [(port, index) for port in ports.split(",") if port]


def port_speed(fields: Mapping[str, str]) -> str:
    """The speed the headroom is computed for: the largest advertised one under autoneg."""
    adv = fields.get("adv_speeds", "")
    if fields.get("autoneg") == "on" and adv and adv != "all":
        speeds = [int(s) for s in adv.split(",") if s.strip().isdecimal()]
        if speeds:
            return str(max(speeds))
    return fields.get("speed", "")


def _ranges(indexes: list[int]) -> list[tuple[int, int]]:
    """Sorted indexes -> contiguous (lo, hi) ranges."""
    out: list[tuple[int, int]] = []
    for i in indexes:
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def _indexes(index: str) -> list[int]:
    lo, _, hi = index.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def lossless_profile(inputs: DynInputs, port: str) -> tuple[str, dict[str, str]] | str:
    """(name, APPL_DB fields) of the port's generated profile, or why there is none."""
    fields = inputs.ports.get(port, {})
    speed, mtu, cable = port_speed(fields), fields.get("mtu", "9100"), inputs.cables.get(port)
    if inputs.asic is None:
        return "the ASIC constants (STATE_DB ASIC_TABLE) are not known"
    if not speed.isdecimal() or not mtu.isdecimal():
        return f"port {port} has no speed or mtu"
    if cable is None:
        return f"port {port} has no CABLE_LENGTH"
    try:
        metres = hr.parse_cable(cable)
    except ValueError as exc:
        return str(exc)
    shared = inputs.over_subscribe_ratio > 0 or int(inputs.pools.get(INGRESS_LOSSLESS_POOL, {}).get("xoff", "0")) > 0
    head = hr.compute_headroom(int(speed), metres, int(mtu), inputs.asic, inputs.pattern, shared)
    name = dynamic_profile_name(speed, cable, mtu)
    return name, {"pool": INGRESS_LOSSLESS_POOL, "xon": str(head.xon), "xoff": str(head.xoff),
                  "size": str(head.size), "dynamic_th": inputs.default_th}


def _is_lossless(inputs: DynInputs, profile: str) -> bool:
    return profile == NULL_PROFILE or "xoff" in inputs.profiles.get(profile, {})


def _up(inputs: DynInputs, port: str) -> bool:
    return inputs.ports.get(port, {}).get("admin_status", "down") == "up"


def plan_pgs(inputs: DynInputs, plan: DynPlan, generated: Rows) -> None:
    by_port: dict[str, list[tuple[str, str, str]]] = {}
    for key, fields in inputs.pgs.items():
        for port, index in _split(key):
            if port in inputs.ports:
                by_port.setdefault(port, []).append((key, index, fields.get("profile", "")))
    for port, pgs in by_port.items():
        if _up(inputs, port):
            _plan_up_pgs(inputs, plan, generated, port, pgs)
        elif ZERO_PG in inputs.zero_profiles:
            for _, index, profile in pgs:
                if not _is_lossless(inputs, profile):
                    plan.rows[PG][f"{port}:{index}"] = {"profile": ZERO_PG}


def _lossless_pgs(inputs: DynInputs, plan: DynPlan, port: str, pgs: list[tuple[str, str, str]],
                  made: tuple[str, dict[str, str]] | str | None) -> list[tuple[str, str, str]]:
    """Write the port's lossy PGs; return its lossless ones (key, range, profile); a ``NULL`` PG whose
    profile cannot be made is an error."""
    lossless: list[tuple[str, str, str]] = []
    for key, index, profile in pgs:
        if profile == NULL_PROFILE:
            if isinstance(made, tuple):
                lossless.append((key, index, made[0]))
            else:
                plan.errors[(PG, key)] = made or "no lossless profile"
        elif _is_lossless(inputs, profile):
            lossless.append((key, index, profile))
        else:
            plan.rows[PG][f"{port}:{index}"] = {"profile": profile}
    return lossless


def _plan_up_pgs(inputs: DynInputs, plan: DynPlan, generated: Rows, port: str,
                 pgs: list[tuple[str, str, str]]) -> None:
    made = lossless_profile(inputs, port) if any(p == NULL_PROFILE for _, _, p in pgs) else None
    lossless = _lossless_pgs(inputs, plan, port, pgs, made)
    sizes = {n: int(f.get("size", "0") or 0) for n, f in inputs.profiles.items()}
    if isinstance(made, tuple):
        sizes[made[0]] = int(made[1]["size"])
    total = hr.port_headroom((index, sizes.get(profile, 0)) for _, index, profile in lossless)
    limit = inputs.max_params.get(port, {}).get("max_headroom_size", "")
    if limit.isdecimal() and int(limit) and total > int(limit):  # 0: the ASIC reports no limit
        for key, index, _ in lossless:
            plan.errors[(PG, key)] = (f"headroom of {port}'s lossless PGs is {total} bytes, more than the port's "
                                      f"max_headroom_size {limit}: refused")
            old = inputs.previous_pgs.get(f"{port}:{index}")
            if old is not None:
                plan.rows[PG][f"{port}:{index}"] = dict(old)
        return
    for _, index, profile in lossless:
        plan.rows[PG][f"{port}:{index}"] = {"profile": profile}
        if isinstance(made, tuple) and profile == made[0]:
            generated[profile] = made[1]


def plan_queues(inputs: DynInputs, plan: DynPlan) -> None:
    down_ports: dict[str, set[int]] = {}
    for key, fields in inputs.queues.items():
        for port, index in _split(key):
            if port not in inputs.ports:
                continue
            profile = fields.get("profile", "")
            if _up(inputs, port) or ZERO_LOSSY_QUEUE not in inputs.zero_profiles:
                plan.rows[QUEUE][f"{port}:{index}"] = {"profile": profile}
                continue
            lossless = inputs.profiles.get(profile, {}).get("pool") == EGRESS_LOSSLESS_POOL
            zero = ZERO_LOSSLESS_QUEUE if lossless and ZERO_LOSSLESS_QUEUE in inputs.zero_profiles else ZERO_LOSSY_QUEUE
            plan.rows[QUEUE][f"{port}:{index}"] = {"profile": zero}
            down_ports.setdefault(port, set()).update(_indexes(index))
    for port in inputs.ports:
        if _up(inputs, port) or ZERO_LOSSY_QUEUE not in inputs.zero_profiles:
            continue
        count = inputs.max_params.get(port, {}).get("max_queues", "")
        if not count.isdecimal():
            continue
        free = [i for i in range(int(count)) if i not in down_ports.get(port, set())]
        for lo, hi in _ranges(free):  # always lo-hi: buffermgrdyn names the unconfigured slice so
            plan.rows[QUEUE][f"{port}:{lo}-{hi}"] = {"profile": ZERO_LOSSY_QUEUE}


def plan_profiles(inputs: DynInputs, plan: DynPlan, generated: Rows) -> None:
    for name, fields in inputs.profiles.items():
        if fields.get("headroom_type") != "dynamic":
            plan.rows[PROFILE][name] = dict(fields)
    for name, fields in {**inputs.zero_profiles, **generated}.items():
        plan.rows[PROFILE][name] = dict(fields)


def _reserved(rows: Rows, profiles: Rows, pools: Rows, kind: str) -> int:
    total = 0
    for key, fields in rows.items():
        profile = profiles.get(fields.get("profile", ""), {})
        if pools.get(profile.get("pool", ""), {}).get("type") in (kind, "both"):
            total += int(profile.get("size", "0") or 0) * hr.pg_count(key.rpartition(":")[2])
    return total


def plan_pools(inputs: DynInputs, plan: DynPlan) -> None:
    mmu = inputs.max_params.get("global", {}).get("mmu_size", "")
    profiles, pools = plan.rows[PROFILE], inputs.pools
    for kind, rows in (("ingress", plan.rows[PG]), ("egress", plan.rows[QUEUE])):
        sizeless = [n for n, f in pools.items() if f.get("type") == kind and "size" not in f]
        for name, fields in pools.items():
            if fields.get("type") != kind:
                continue
            row = {f: v for f, v in fields.items() if f != "percentage"}
            if name in sizeless:
                if not mmu.isdecimal():
                    plan.errors[(POOL, name)] = "waiting for STATE_DB BUFFER_MAX_PARAM_TABLE|global mmu_size"
                    continue
                free = max(int(mmu) - _reserved(rows, profiles, pools, kind), 0) // len(sizeless)
                row["size"] = str(free * int(fields.get("percentage", "100")) // 100)
            plan.rows[POOL][name] = row
    for name, fields in pools.items():
        if fields.get("type") not in ("ingress", "egress"):
            plan.rows[POOL][name] = {f: v for f, v in fields.items() if f != "percentage"}
    ingress = plan.rows[POOL].get(INGRESS_LOSSLESS_POOL)
    if ingress is not None and inputs.over_subscribe_ratio > 0 and "xoff" not in pools[INGRESS_LOSSLESS_POOL]:
        xoff = sum(int(profiles.get(f["profile"], {}).get("xoff", "0")) * hr.pg_count(k.rpartition(":")[2])
                   for k, f in plan.rows[PG].items())
        ingress["xoff"] = str(xoff // inputs.over_subscribe_ratio)


def plan(inputs: DynInputs) -> DynPlan:
    """The APPL_DB buffer tables for ``inputs`` (see the module docstring)."""
    result = DynPlan({kind: {} for kind in (POOL, PROFILE, PG, QUEUE, INGRESS_LIST, EGRESS_LIST)}, {})
    generated: Rows = {}
    plan_pgs(inputs, result, generated)
    plan_queues(inputs, result)
    plan_profiles(inputs, result, generated)
    plan_pools(inputs, result)
    for kind, rows in ((INGRESS_LIST, inputs.ingress_lists), (EGRESS_LIST, inputs.egress_lists)):
        result.rows[kind] = {key: dict(fields) for key, fields in rows.items()}
    return result
