"""The dynamic buffer model's APPL_DB content, computed from CONFIG_DB and STATE_DB (pure), after swss
cfgmgr/buffermgrdyn.cpp.

* Admin-up port: ``BUFFER_PG|<port>|<range>`` with profile ``NULL`` gets the generated lossless profile
  ``pg_lossless_<speed>_<cable>[_mtu<mtu>][_th<dynamic_th>]_profile`` (``buffer_headroom.compute_headroom``;
  speed is the largest of ``adv_speeds`` when ``autoneg`` is on; ``dynamic_th`` = DEFAULT_LOSSLESS_BUFFER_PARAMETER
  ``default_dynamic_th``); a PG whose profile has ``headroom_type`` dynamic gets one the same way with that
  profile's ``dynamic_th`` (``_th<n>`` when it is not the default; buffermgrdyn getDynamicProfileName); with
  cable length ``0m`` such PGs are left out of APPL_DB (no profile, not an error); other PGs, queues and
  profile lists are copied.
* Headroom admission (buffer_check_headroom_vs.lua, the vs symlink of the mellanox script): with a STATE_DB
  ``BUFFER_MAX_PARAM_TABLE|<port>`` ``max_headroom_size`` (absent or 0: not reported by the ASIC, no
  limit) a port's PGs are admitted while 4096 + the pipeline latency + 20 KiB egress mirror + the sum of
  every admitted PG's size x PG count (a size 0, lossy, counts as the pipeline latency) stays below it.
  PGs already in APPL_DB are counted first, then the new ones in key order; a refused PG keeps what APPL_DB
  had (nothing, for a new PG) and the error names the PG, the size and the limit.
* Admin-down port (buffer reclaimed with the zero profiles): with the zero-profile control field
  ``pgs_to_apply_zero_profile`` (vs: "0") every PG is removed and only those PGs carry
  ``ingress_lossy_pg_zero_profile``; without it lossless PGs are removed and lossy PGs get the zero profile.
  Queues of a profile in ``egress_lossless_pool`` get ``egress_lossless_zero_profile``, the other configured
  queues and every unconfigured queue up to ``max_queues`` get ``egress_lossy_zero_profile`` (unconfigured
  indexes as contiguous ranges).
* Profiles: CONFIG_DB's (not those with ``headroom_type`` dynamic, which are inputs), the generated ones
  in use, and the zero profiles. A generated profile nobody uses is gone.
* Pools: a pool with ``size`` keeps it; a pool without one gets the ASIC buffer (``mmu_size``) less what
  the PGs (ingress) or queues (egress) of every port reserve, shared equally by the sized-less pools of
  that direction (times ``percentage`` / 100 when set).
* Shared headroom pool (buffer_pool_mellanox.lua, recalculateSharedBufferPool): a non-zero configured
  ingress_lossless_pool ``xoff`` is used as it is; else with an ``over_subscribe_ratio`` the ``xoff`` is
  ceil((sum over PGs and queues of (xon + xoff - size) x count - 10 KiB private headroom per port with a
  lossless PG) / ratio), 655360 when that is 0; a shared headroom pool that was on and is off is written
  as ``xoff`` "0" (and stays so).

Simplifications, stated: multi-port keys (``Ethernet0,Ethernet4|3-4``) are split per port; no gearbox delays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nos.cfgmgr import buffer_headroom as hr
from nos.cfgmgr.buffer_lossless import INGRESS_LOSSLESS_POOL, ZERO_CABLE, dynamic_profile_name

Rows = dict[str, dict[str, str]]
ZERO_PG = "ingress_lossy_pg_zero_profile"
ZERO_LOSSY_QUEUE = "egress_lossy_zero_profile"
ZERO_LOSSLESS_QUEUE = "egress_lossless_zero_profile"
EGRESS_LOSSLESS_POOL = "egress_lossless_pool"
NULL_PROFILE = "NULL"
HEADROOM_OVERHEAD = 4096 + 20 * 1024  # the vs check's deviation allowance + egress mirror (2 x 10 KiB MTU)
PRIVATE_HEADROOM = 10 * 1024  # per port with a lossless PG, when the shared headroom pool is on
DEFAULT_SHP_SIZE = 655360
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
    zero_pg_ids: str = ""  # zero_profiles.json control field pgs_to_apply_zero_profile ("" = every lossy PG)
    previous_pgs: Rows = field(default_factory=dict)  # APPL_DB BUFFER_PG_TABLE as last written
    previous_pools: Rows = field(default_factory=dict)  # APPL_DB BUFFER_POOL_TABLE as last written


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


def lossless_profile(inputs: DynInputs, port: str, threshold: str | None = None) -> tuple[str, dict[str, str]] | str:
    """(name, APPL_DB fields) of the port's generated profile for ``threshold`` (None: the default
    ``dynamic_th``), or why there is none."""
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
    th = inputs.default_th if threshold is None else threshold
    name = dynamic_profile_name(speed, cable, mtu, None if th == inputs.default_th else th)
    return name, {"pool": INGRESS_LOSSLESS_POOL, "xon": str(head.xon), "xoff": str(head.xoff),
                  "size": str(head.size), "dynamic_th": th}


def _template_threshold(inputs: DynInputs, profile: str) -> str | None:
    """The PG's threshold when ``profile`` asks for a generated headroom (NULL or headroom_type dynamic),
    "" for NULL (the default), None for a profile used as it is."""
    if profile == NULL_PROFILE:
        return ""
    fields = inputs.profiles.get(profile, {})
    if fields.get("headroom_type") == "dynamic":
        return fields.get("dynamic_th", inputs.default_th)
    return None


def _is_lossless(inputs: DynInputs, profile: str) -> bool:
    return _template_threshold(inputs, profile) is not None or "xoff" in inputs.profiles.get(profile, {})


def _up(inputs: DynInputs, port: str) -> bool:
    return inputs.ports.get(port, {}).get("admin_status", "down") == "up"


def plan_pgs(inputs: DynInputs, plan: DynPlan, generated: Rows) -> None:
    by_port: dict[str, list[tuple[str, str, str]]] = {}
    for key, fields in inputs.pgs.items():
        for port, index in _split(key):
            if port in inputs.ports:
                by_port.setdefault(port, []).append((key, index, fields.get("profile", "")))
    for port in inputs.ports:
        pgs = by_port.get(port, [])
        if _up(inputs, port):
            _plan_up_pgs(inputs, plan, generated, port, pgs)
        elif ZERO_PG not in inputs.zero_profiles:
            continue
        elif inputs.zero_pg_ids:  # vs: remove every PG, the zero profile on the listed ones only
            plan.rows[PG][f"{port}:{inputs.zero_pg_ids}"] = {"profile": ZERO_PG}
        else:
            for _, index, profile in pgs:
                if not _is_lossless(inputs, profile):
                    plan.rows[PG][f"{port}:{index}"] = {"profile": ZERO_PG}


def _resolve_pgs(inputs: DynInputs, plan: DynPlan, port: str, pgs: list[tuple[str, str, str]],
                 generated: Rows) -> list[tuple[str, str, str]]:
    """The port's PGs as (key, range, APPL_DB profile); a PG whose headroom cannot be generated is an error."""
    made: dict[str, tuple[str, dict[str, str]] | str] = {}
    out: list[tuple[str, str, str]] = []
    for key, index, profile in pgs:
        threshold = _template_threshold(inputs, profile)
        if threshold is None:
            out.append((key, index, profile))
            continue
        if inputs.cables.get(port) == ZERO_CABLE:  # buffermgrdyn refreshPgsForPort: no lossless PG, not an error
            continue
        if threshold not in made:
            made[threshold] = lossless_profile(inputs, port, threshold or None)
        result = made[threshold]
        if isinstance(result, str):
            plan.errors[(PG, key)] = result
            continue
        generated.setdefault(result[0], result[1])
        out.append((key, index, result[0]))
    return out


def _pg_size(inputs: DynInputs, generated: Rows, profile: str) -> int:
    fields = generated.get(profile) or inputs.profiles.get(profile, {})
    size = int(fields.get("size", "0") or 0)
    return size or _lossy_pg_size(inputs)


def _lossy_pg_size(inputs: DynInputs) -> int:
    return int((inputs.asic.pipeline_latency if inputs.asic else 0) * hr.KB)


def _plan_up_pgs(inputs: DynInputs, plan: DynPlan, generated: Rows, port: str,
                 pgs: list[tuple[str, str, str]]) -> None:
    candidates: Rows = {}
    resolved = _resolve_pgs(inputs, plan, port, pgs, candidates)
    limit = inputs.max_params.get(port, {}).get("max_headroom_size", "")
    limit_n = int(limit) if limit.isdecimal() else 0  # 0: the ASIC reports no limit
    total = HEADROOM_OVERHEAD + _lossy_pg_size(inputs)
    def admitted_first(pg: tuple[str, str, str]) -> tuple[bool, str]:
        return inputs.previous_pgs.get(f"{port}:{pg[1]}") != {"profile": pg[2]}, pg[0]

    for key, index, profile in sorted(resolved, key=admitted_first):
        appl_key = f"{port}:{index}"
        need = _pg_size(inputs, candidates, profile) * hr.pg_count(index)
        if limit_n and not limit_n > total + need:
            plan.errors[(PG, key)] = (f"headroom of {port} would be {total + need} bytes, not below the port's "
                                      f"max_headroom_size {limit}: refused")
            old = inputs.previous_pgs.get(appl_key)
            if old is not None:
                plan.rows[PG][appl_key] = dict(old)
                total += _pg_size(inputs, candidates, old.get("profile", "")) * hr.pg_count(index)
            continue
        total += need
        plan.rows[PG][appl_key] = {"profile": profile}
        if profile in candidates:
            generated[profile] = candidates[profile]


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
    if ingress is not None:
        _plan_shared_headroom(inputs, plan, ingress)


def _int(text: str | None) -> int:
    return int(text) if text and text.isdecimal() else 0


def _plan_shared_headroom(inputs: DynInputs, plan: DynPlan, ingress: dict[str, str]) -> None:
    """ingress_lossless_pool ``xoff`` (see the module docstring)."""
    if _int(inputs.pools[INGRESS_LOSSLESS_POOL].get("xoff")):
        return  # configured: used as it is
    if inputs.over_subscribe_ratio > 0:
        profiles, extra, lossless_ports = plan.rows[PROFILE], 0, set()
        for kind in (PG, QUEUE):
            for key, fields in plan.rows[kind].items():
                profile = profiles.get(fields.get("profile", ""), {})
                xon, xoff, size = (_int(profile.get(f)) for f in ("xon", "xoff", "size"))
                if "xoff" in profile and kind == PG:
                    lossless_ports.add(key.rpartition(":")[0])
                if "xon" in profile and "xoff" in profile and xon + xoff > size:
                    extra += (xon + xoff - size) * hr.pg_count(key.rpartition(":")[2])
        extra = max(extra - PRIVATE_HEADROOM * len(lossless_ports), 0)
        ingress["xoff"] = str(-(-extra // inputs.over_subscribe_ratio) or DEFAULT_SHP_SIZE)
    elif "xoff" not in ingress and "xoff" in inputs.previous_pools.get(INGRESS_LOSSLESS_POOL, {}):
        ingress["xoff"] = "0"  # was written: "0" tells orchagent it is off (and the field never disappears)


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
