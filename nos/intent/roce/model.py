"""The RoCE intent model: ``ROCE|global`` (strings, as CONFIG_DB holds them) resolved against its
profile into one typed, checked :class:`RoceIntent`.

:func:`resolve` refuses, all at once, every field that is unknown, of the wrong type or inconsistent
with the others, each as a ``ConfigError`` naming table ``ROCE``, key ``global``, field and value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from nos.intent.roce.profiles import DEFAULT_PROFILE, PROFILES, Profile
from nos.schema.config import ConfigError, Value, display, field_rules
from nos.schema.config.roce import ALL_PORTS, CFG_ROCE_TABLE_NAME, ROCE_KEY, RoceRow

LOSSLESS, LOSSY = "lossless", "lossy"


class IntentError(ValueError):
    """Raised by :func:`resolve` when ``ROCE|global`` is refused; ``errors`` names every problem."""

    def __init__(self, errors: list[ConfigError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


class RoceIntent(BaseModel):
    """A resolved RoCE intent: the row's values over its profile's defaults."""

    model_config = ConfigDict(frozen=True)

    enabled: bool = True
    mode: str = LOSSLESS
    profile: str = DEFAULT_PROFILE
    roce_dscp: tuple[int, ...]
    roce_priority: tuple[int, ...]
    cnp_dscp: int
    cnp_tc: int
    cable_length: str | None = None
    ecn_min: int
    ecn_max: int
    ecn_probability: int
    pfcwd: bool = True
    pfcwd_detection_ms: int = 200
    pfcwd_restoration_ms: int = 200
    pfcwd_action: str = "drop"
    roce_weight: int
    lossy_weight: int
    ports: tuple[str, ...] | None = None  # None: every port

    @property
    def lossless(self) -> bool:
        return self.mode == LOSSLESS

    @property
    def priorities(self) -> tuple[int, ...]:
        """The RoCE priorities (= traffic classes, PGs and queues), sorted, without repeats."""
        return tuple(sorted(set(self.roce_priority)))

    def dscp_priorities(self) -> dict[int, int]:
        """RoCE DSCP -> its priority (one priority for all, or one per DSCP)."""
        if len(self.roce_priority) == 1:
            return {dscp: self.roce_priority[0] for dscp in self.roce_dscp}
        return dict(zip(self.roce_dscp, self.roce_priority, strict=True))

    @property
    def profile_data(self) -> Profile:
        return PROFILES[self.profile]


def _error(field: str | None, value: Value | None, reason: str) -> ConfigError:
    return ConfigError(CFG_ROCE_TABLE_NAME, ROCE_KEY, field, None if value is None else display(value), reason)


def _typed(row: Mapping[str, Value]) -> tuple[dict[str, Any], list[ConfigError]]:
    """The row's fields converted by their leaf types; errors for unknown or malformed fields."""
    rules = field_rules(RoceRow)
    errors = [_error(name, value, f"is not a {CFG_ROCE_TABLE_NAME} field (fields: {', '.join(rules)})")
              for name, value in row.items() if name not in rules]
    try:
        model = RoceRow.model_validate({k: v for k, v in row.items() if k in rules})
    except ValidationError as exc:
        for item in exc.errors():
            name = str(item["loc"][0]) if item["loc"] else None
            reason = str(item["msg"]).removeprefix("Value error, ")
            errors.append(_error(name, row.get(name) if name else None, reason))
        return {}, errors
    return model.model_dump(exclude_none=True), errors


def _defaults(profile: Profile) -> dict[str, Any]:
    names = ("roce_dscp", "roce_priority", "cnp_dscp", "cnp_tc", "ecn_min", "ecn_max", "ecn_probability",
             "roce_weight", "lossy_weight", "mode", "pfcwd_detection_ms", "pfcwd_restoration_ms", "pfcwd_action")
    values = {name: getattr(profile, name) for name in names}
    values["pfcwd"] = profile.pfcwd
    return values


def _consistency(intent: RoceIntent, row: Mapping[str, Value]) -> Iterator[ConfigError]:
    """Cross-field rules; each error names the field the row set (or would have to set)."""
    dscps, prios = intent.roce_dscp, intent.roce_priority
    if len(set(dscps)) != len(dscps):
        yield _error("roce_dscp", row.get("roce_dscp", ",".join(map(str, dscps))), "lists a DSCP twice")
    if len(prios) not in (1, len(dscps)):
        yield _error("roce_priority", row.get("roce_priority", ",".join(map(str, prios))),
                     f"must be one priority, or one per RoCE DSCP ({len(dscps)})")
    if intent.cnp_dscp in dscps:
        yield _error("cnp_dscp", str(intent.cnp_dscp), "is also a RoCE DSCP; CNPs need their own")
    if intent.cnp_tc in prios:
        yield _error("cnp_tc", str(intent.cnp_tc), "is also a RoCE priority; CNPs need their own traffic class")
    if intent.cnp_tc == 0 or 0 in prios:
        field = "cnp_tc" if intent.cnp_tc == 0 else "roce_priority"
        yield _error(field, row.get(field, "0"), "traffic class 0 carries the default (lossy) traffic")
    if intent.ecn_min > intent.ecn_max:
        yield _error("ecn_max", str(intent.ecn_max), f"must be >= ecn_min ({intent.ecn_min})")


def resolve(row: Mapping[str, Value]) -> RoceIntent:
    """``ROCE|global`` over its profile's defaults; raises IntentError naming every bad field."""
    values, errors = _typed(row)
    if errors:
        raise IntentError(errors)
    profile = PROFILES[values.get("profile", DEFAULT_PROFILE)]
    merged = {**_defaults(profile), **values, "profile": profile.name}
    if "pfcwd" in values:
        merged["pfcwd"] = values["pfcwd"] == "on"
    for name in ("roce_dscp", "roce_priority"):
        merged[name] = tuple(merged[name])
    ports = values.get("ports")
    merged["ports"] = None if ports is None or ports == [ALL_PORTS] else tuple(ports)
    intent = RoceIntent.model_validate(merged)
    problems = list(_consistency(intent, row))
    if ports is not None and ALL_PORTS in ports and len(ports) > 1:
        problems.append(_error("ports", row.get("ports"), "is 'all' or a list of ports, not both"))
    if problems:
        raise IntentError(problems)
    return intent


def default_intent(profile: str = DEFAULT_PROFILE) -> RoceIntent:
    """The intent a profile gives when the row sets nothing else."""
    return resolve({"profile": profile})


__all__ = ["LOSSLESS", "LOSSY", "IntentError", "RoceIntent", "default_intent", "resolve"]
