"""SCHEDULER and WRED_PROFILE rows -> SAI SCHEDULER / WRED attributes (pure), as qosorch maps them.

SCHEDULER: ``type`` DWRR|WRR|STRICT, ``weight`` (1..100), ``meter_type`` packets|bytes, ``cir``/``cbs``
(minimum bandwidth rate and burst) and ``pir``/``pbs`` (maximum). Any other field refuses the row,
``priority`` included (qosorch's handleSchedulerTable: "Unknown field" -> invalid entry).

WRED_PROFILE: ``wred_<colour>_enable``, ``<colour>_min|max_threshold`` (bytes),
``<colour>_drop_probability`` (percent), ``ecn`` (ecn_none .. ecn_all). A new WRED object always gets
``SAI_WRED_ATTR_WEIGHT`` 0 and, for every enabled colour without a drop probability, probability 100
(qosorch's default). A row whose minimum is above its maximum is refused whole. An update of an
existing profile is ordered so that min <= max holds after every single SET (a new minimum above the
old maximum raises the maximum first). The separate ECN-marking thresholds (``ecn_<colour>_*``) are
accepted and not programmed: this ASIC marks at the WRED thresholds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from nos.sai.values import sai_bool

Attrs = list[tuple[str, str]]
COLORS = ("green", "yellow", "red")
ECN_MODES = {"ecn_none": "NONE", "ecn_green": "GREEN", "ecn_yellow": "YELLOW", "ecn_red": "RED",
             "ecn_green_yellow": "GREEN_YELLOW", "ecn_green_red": "GREEN_RED", "ecn_yellow_red": "YELLOW_RED",
             "ecn_all": "ALL"}
U64_MAX = (1 << 64) - 1
U32_MAX = (1 << 32) - 1


class InvalidProfile(ValueError):
    """Raised for a SCHEDULER or WRED_PROFILE row that cannot be programmed (names the field)."""


def _int(field: str, value: str, lo: int, hi: int) -> str:
    try:
        number = int(value)
    except ValueError:
        raise InvalidProfile(f"field {field!r}: {value!r} is not a number") from None
    if not lo <= number <= hi:
        raise InvalidProfile(f"field {field!r}: {number} is outside {lo}..{hi}")
    return str(number)


def _choice(field: str, value: str, choices: Mapping[str, str]) -> str:
    if value not in choices:
        raise InvalidProfile(f"field {field!r}: {value!r} is not one of {', '.join(choices)}")
    return choices[value]


# -- SCHEDULER -------------------------------------------------------------------------------------
SCHEDULER_FIELDS: dict[str, tuple[str, Callable[[str, str], str]]] = {
    "type": ("SAI_SCHEDULER_ATTR_SCHEDULING_TYPE", lambda f, v: "SAI_SCHEDULING_TYPE_" + _choice(
        f, v, {"DWRR": "DWRR", "WRR": "WRR", "STRICT": "STRICT"})),
    "weight": ("SAI_SCHEDULER_ATTR_SCHEDULING_WEIGHT", lambda f, v: _int(f, v, 1, 100)),
    "meter_type": ("SAI_SCHEDULER_ATTR_METER_TYPE", lambda f, v: "SAI_METER_TYPE_" + _choice(
        f, v, {"packets": "PACKETS", "bytes": "BYTES"})),
    "cir": ("SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_RATE", lambda f, v: _int(f, v, 0, U64_MAX)),
    "cbs": ("SAI_SCHEDULER_ATTR_MIN_BANDWIDTH_BURST_RATE", lambda f, v: _int(f, v, 0, U64_MAX)),
    "pir": ("SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_RATE", lambda f, v: _int(f, v, 0, U64_MAX)),
    "pbs": ("SAI_SCHEDULER_ATTR_MAX_BANDWIDTH_BURST_RATE", lambda f, v: _int(f, v, 0, U64_MAX)),
}
SCHEDULER_IGNORED = frozenset({"NULL"})


def scheduler_attrs(fields: Mapping[str, str]) -> Attrs:
    """SAI SCHEDULER attributes of a SCHEDULER row. Raises InvalidProfile."""
    attrs: Attrs = []
    for field, value in sorted(fields.items()):
        if field in SCHEDULER_IGNORED:
            continue
        if field not in SCHEDULER_FIELDS:
            raise InvalidProfile(f"field {field!r} is not a SCHEDULER field")
        attr, convert = SCHEDULER_FIELDS[field]
        attrs.append((attr, convert(field, value)))
    return attrs


# -- WRED_PROFILE ----------------------------------------------------------------------------------
def _wred_fields() -> dict[str, tuple[str, Callable[[str, str], str]]]:
    table: dict[str, tuple[str, Callable[[str, str], str]]] = {}
    for color in COLORS:
        up = color.upper()
        table[f"wred_{color}_enable"] = (f"SAI_WRED_ATTR_{up}_ENABLE", _bool)
        table[f"{color}_min_threshold"] = (f"SAI_WRED_ATTR_{up}_MIN_THRESHOLD", lambda f, v: _int(f, v, 0, U32_MAX))
        table[f"{color}_max_threshold"] = (f"SAI_WRED_ATTR_{up}_MAX_THRESHOLD", lambda f, v: _int(f, v, 0, U32_MAX))
        table[f"{color}_drop_probability"] = (f"SAI_WRED_ATTR_{up}_DROP_PROBABILITY", lambda f, v: _int(f, v, 0, 100))
    table["ecn"] = ("SAI_WRED_ATTR_ECN_MARK_MODE", lambda f, v: "SAI_ECN_MARK_MODE_" + _choice(f, v, ECN_MODES))
    return table


def _bool(field: str, value: str) -> str:
    if value not in ("true", "false"):
        raise InvalidProfile(f"field {field!r}: {value!r} is not true or false")
    return sai_bool(value == "true")


WRED_FIELDS = _wred_fields()
WRED_IGNORED = frozenset({"NULL", *(f"ecn_{c}_{s}" for c in COLORS
                                    for s in ("min_threshold", "max_threshold", "mark_probability"))})


def wred_attrs(fields: Mapping[str, str]) -> dict[str, str]:
    """SAI WRED attributes of a WRED_PROFILE row, min <= max checked. Raises InvalidProfile."""
    attrs: dict[str, str] = {}
    for field, value in sorted(fields.items()):
        if field in WRED_IGNORED:
            continue
        if field not in WRED_FIELDS:
            raise InvalidProfile(f"field {field!r} is not a WRED_PROFILE field")
        attr, convert = WRED_FIELDS[field]
        attrs[attr] = convert(field, value)
    for color in COLORS:
        low, high = fields.get(f"{color}_min_threshold"), fields.get(f"{color}_max_threshold")
        if low is not None and high is not None and int(low) > int(high):
            raise InvalidProfile(f"field '{color}_min_threshold': {low} is above {color}_max_threshold {high}")
    return attrs


def wred_create_attrs(attrs: Mapping[str, str]) -> Attrs:
    """What a new WRED object is created with: weight 0, the row, default drop probabilities."""
    out: Attrs = [("SAI_WRED_ATTR_WEIGHT", "0"), *attrs.items()]
    for color in COLORS:
        up = color.upper()
        if attrs.get(f"SAI_WRED_ATTR_{up}_ENABLE") == "true" and f"SAI_WRED_ATTR_{up}_DROP_PROBABILITY" not in attrs:
            out.append((f"SAI_WRED_ATTR_{up}_DROP_PROBABILITY", "100"))
    return out


def wred_update_attrs(old: Mapping[str, str], new: Mapping[str, str]) -> Attrs:
    """The SETs that turn ``old`` into ``new`` (changed attributes only), thresholds ordered so that
    min <= max holds after each one."""
    changed = {a: v for a, v in new.items() if old.get(a) != v}
    out: Attrs = []
    for color in COLORS:
        low, high = f"SAI_WRED_ATTR_{color.upper()}_MIN_THRESHOLD", f"SAI_WRED_ATTR_{color.upper()}_MAX_THRESHOLD"
        order = (low, high)
        if low in changed and int(changed[low]) > int(old.get(high, str(U32_MAX))):
            order = (high, low)
        out += [(a, changed.pop(a)) for a in order if a in changed]
    return out + sorted(changed.items())
