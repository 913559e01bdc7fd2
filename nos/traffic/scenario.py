"""A traffic scenario (``configs/scenarios/*.yaml``): its schema and ``parse_scenario``.

A scenario names RoCE hosts attached to switch ports and the workloads they run::

    name: incast-64to1
    duration: 20ms              # the most simulated time the run may take
    seed: 1
    sample_interval: 10us       # time series resolution
    forwarding: attachment      # or programmed: through the switch's FDB / routes
    hosts:
      - name: sender{i}         # {i}: index in the group, {port}: the port; a group of several
        ports: Ethernet4-Ethernet256   # ports without a placeholder gets {i} appended
      - name: receiver
        ports: Ethernet0
        cable: 5m               # default: the port's CABLE_LENGTH; speed default: the port's
    workloads:
      - kind: incast
        senders: sender*        # host names, globs, "all"; a list or a comma-separated string
        receiver: receiver
        size: 1MB               # decimal units: 1 MB = 1,000,000 B; KiB/MiB are binary

Defaults follow NVIDIA's RoCE setup: DSCP 26, MTU 4096, DCQCN on, ECN capable. Syntax and values are
checked here (``parse_scenario``); port names and host selectors against a switch's ports in
``nos.traffic.hosts``. Every problem is a ``ScenarioError`` naming the field (``workloads[0].size``)
and the value.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from nos.traffic.errors import ScenarioError, ScenarioProblem
from nos.traffic.units import parse_length, parse_rate, parse_size, parse_time

ROCE_DSCP = 26          # NVIDIA's RoCE default (SONiC's AZURE map puts it on lossy TC1)
ROCE_MTU = 4096         # RoCE payload bytes per packet
MAX_SAMPLES = 100_000   # duration / sample_interval
MAX_DURATION_S = 10.0

Size = Annotated[int, BeforeValidator(parse_size), Field(gt=0)]
Time = Annotated[float, BeforeValidator(parse_time), Field(ge=0)]
PositiveTime = Annotated[float, BeforeValidator(parse_time), Field(gt=0)]
Rate = Annotated[float, BeforeValidator(parse_rate), Field(gt=0)]
Length = Annotated[float, BeforeValidator(parse_length), Field(ge=0)]
Dscp = Annotated[int, Field(ge=0, le=63)]

_PORT = re.compile(r"^([A-Za-z][A-Za-z_]*?)(\d+)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-{}]*$")
_SELECTOR = re.compile(r"^[A-Za-z0-9_.\-*?\[\]!]+$")
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


def split_list(value: object) -> object:
    """``"a,b"`` or ``"a"`` -> ``["a", "b"]``; lists pass through (items stripped)."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list | tuple):
        return [part.strip() if isinstance(part, str) else part for part in value]
    return value


def check_port_item(item: str) -> str:
    """``Ethernet0`` or a range ``Ethernet0-Ethernet252`` (same prefix, ascending)."""
    first, sep, last = item.partition("-")
    low, high = _PORT.match(first), _PORT.match(last) if sep else None
    if low is None or (sep and high is None):
        raise ValueError(f"{item!r} is not a port name or a range like Ethernet0-Ethernet252")
    if high is not None:
        if high.group(1) != low.group(1):
            raise ValueError(f"{item!r}: a range's ends need the same prefix")
        if int(high.group(2)) < int(low.group(2)):
            raise ValueError(f"{item!r}: a range goes from the lower number to the higher")
    return item


def check_selector(item: str) -> str:
    if not _SELECTOR.match(item):
        raise ValueError(f"{item!r} is not a host name, glob (sender*) or 'all'")
    return item


PortList = Annotated[list[Annotated[str, BeforeValidator(lambda v: check_port_item(str(v)))]],
                     BeforeValidator(split_list), Field(min_length=1)]
Selector = Annotated[list[Annotated[str, BeforeValidator(lambda v: check_selector(str(v)))]],
                     BeforeValidator(split_list), Field(min_length=1)]


class Strict(BaseModel):
    """Unknown fields are errors (a typo must not silently fall back to a default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PauseStorm(Strict):
    """The NIC sends pause frames to the switch on ``priority`` from ``start`` to ``end`` (a storm)."""

    start: Time
    end: PositiveTime
    priority: int = Field(default=3, ge=0, le=7)

    @model_validator(mode="after")
    def _ordered(self) -> PauseStorm:
        if self.end <= self.start:
            raise ValueError(f"end ({self.end}s) must be after start ({self.start}s)")
        return self


class HostGroup(Strict):
    """NICs on one or more switch ports, one per port, alike but for their names and addresses."""

    name: str
    ports: PortList
    speed: Rate | None = None              # default: the port's speed
    cable: Length | None = None            # default: the port's CABLE_LENGTH
    mac: str | None = None                 # the first host's MAC; the next ones count up (default: auto)
    ip: str | None = None                  # the first host's address[/prefix]; the next add ip_step (default: auto)
    ip_step: int = Field(default=1, ge=1)
    vlan: int = Field(default=0, ge=0, le=4094)   # 802.1Q VID the NIC tags with (0: untagged)
    mtu: Size = ROCE_MTU                   # payload bytes per packet
    dcqcn: bool = True
    ecn: bool = True                       # packets are ECN capable (ECT)
    ignores_pause: bool = False            # the NIC keeps sending while the switch pauses it
    pause_storm: PauseStorm | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value) or value.replace("{i}", "").replace("{port}", "").count("{"):
            raise ValueError(f"{value!r} is not a host name (letters, digits, _ . -; placeholders {{i}} {{port}})")
        return value

    @field_validator("mac")
    @classmethod
    def _mac(cls, value: str | None) -> str | None:
        if value is not None and not _MAC.match(value):
            raise ValueError(f"{value!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
        return value

    @field_validator("ip")
    @classmethod
    def _ip(cls, value: str | None) -> str | None:
        if value is not None:
            ipaddress.ip_interface(value)  # raises ValueError naming the value
        return value


class WorkloadBase(Strict):
    name: str | None = None                # default: the kind (kind-N when repeated)
    dscp: Dscp = ROCE_DSCP
    start: Time = 0.0


class Incast(WorkloadBase):
    """Every sender sends ``size`` bytes to one receiver at once."""

    kind: Literal["incast"]
    senders: Selector
    receiver: Selector
    size: Size


class Permutation(WorkloadBase):
    """Every host sends ``size`` bytes to one other host, a seeded random derangement."""

    kind: Literal["permutation"]
    hosts: Selector = ["all"]
    size: Size


class AllToAll(WorkloadBase):
    """Every host sends ``size`` bytes to every other host, over ``queue_pairs`` RDMA queue pairs per
    peer (each its own flow and UDP source port, as NCCL spreads a peer's traffic over several QPs:
    ECMP then spreads them), ``size`` split evenly among them."""

    kind: Literal["all_to_all"]
    hosts: Selector = ["all"]
    size: Size
    queue_pairs: int = Field(default=1, ge=1, le=64)


class AllReduce(WorkloadBase):
    """Ring AllReduce among ``gpus`` (in the order given): ``iterations`` x (compute, then 2(N-1)
    steps in which every GPU sends message/N bytes to its ring neighbour)."""

    kind: Literal["allreduce"]
    gpus: Selector
    message: Size
    compute: Time = 0.0                    # before each iteration
    step_compute: Time = 0.0               # between the steps of one iteration (the reduction)
    iterations: int = Field(default=1, ge=1, le=1000)


class Background(WorkloadBase):
    """Lossy traffic from ``from`` to ``to`` (paired one to one, the shorter list cycling): either
    ``size`` bytes per pair, or ``rate`` (open loop, a chunk every ``interval``) for ``duration``."""

    model_config = ConfigDict(populate_by_name=True)

    kind: Literal["background"]
    from_: Selector = Field(alias="from")
    to: Selector
    rate: Rate | None = None
    size: Size | None = None
    duration: PositiveTime | None = None   # rate only; default: until the scenario's end
    interval: PositiveTime = 10e-6         # rate only: one chunk of rate x interval per interval
    dscp: Dscp = 0

    @model_validator(mode="after")
    def _rate_or_size(self) -> Background:
        if (self.rate is None) == (self.size is None):
            raise ValueError("give exactly one of 'rate' and 'size'")
        return self


Workload = Annotated[Incast | Permutation | AllToAll | AllReduce | Background, Discriminator("kind")]
KINDS = ("incast", "permutation", "all_to_all", "allreduce", "background")


class Scenario(Strict):
    """A whole scenario file."""

    name: str = Field(min_length=1)
    description: str = ""
    duration: PositiveTime = 0.05
    seed: int = 0
    sample_interval: PositiveTime = 10e-6
    forwarding: Literal["attachment", "programmed"] = "attachment"
    # overrides of the model's DcqcnParams fields (checked when expanded); "_s" fields take times,
    # "_bps" fields rates, "_bytes" fields sizes ("50us", "100M", "10MB")
    dcqcn: dict[str, bool | int | float | str] = Field(default_factory=dict)
    hosts: list[HostGroup] = Field(min_length=1)
    workloads: list[Workload] = Field(min_length=1)



def workload_names(scenario: Scenario) -> list[str]:
    """Each workload's name: given, else its kind (``kind-<index>`` when several unnamed ones share it)."""
    unnamed = [w.kind for w in scenario.workloads if not w.name]
    return [w.name or (w.kind if unnamed.count(w.kind) == 1 else f"{w.kind}-{i}")
            for i, w in enumerate(scenario.workloads)]


def check_scenario(scenario: Scenario) -> list[ScenarioProblem]:
    """What one field cannot say about itself: limits on the run's size, names used twice."""
    found = []
    if scenario.duration > MAX_DURATION_S:
        found.append(ScenarioProblem("duration", f"at most {MAX_DURATION_S:g}s of simulated time",
                                     scenario.duration))
    samples = scenario.duration / scenario.sample_interval
    if samples > MAX_SAMPLES:
        found.append(ScenarioProblem("sample_interval", f"gives {samples:.0f} samples over the duration; at most "
                                     f"{MAX_SAMPLES}", scenario.sample_interval))
    groups = [group.name for group in scenario.hosts]
    found += [ScenarioProblem(f"hosts[{i}].name", "used by two host groups", name)
              for i, name in enumerate(groups) if name in groups[:i]]
    names = workload_names(scenario)
    found += [ScenarioProblem(f"workloads[{i}].name", "used by two workloads", name)
              for i, name in enumerate(names) if name in names[:i]]
    return found


def field_path(loc: tuple[int | str, ...]) -> str:
    """pydantic's location -> ``workloads[0].size`` (the union's tag dropped)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in KINDS or part.startswith("function-"):
            continue
        else:
            out += f".{part}" if out else part
    return out or "(scenario)"


def problems_of(exc: ValidationError) -> list[ScenarioProblem]:
    found = []
    for error in exc.errors(include_url=False):
        where = field_path(tuple(error["loc"]))
        message = str(error["msg"]).removeprefix("Value error, ")
        value = error.get("input")
        if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
            where = f"{where}.kind"
            value = (error.get("ctx") or {}).get("tag")
            message = f"not a workload kind (one of {', '.join(KINDS)})" if value else "missing (one of " \
                f"{', '.join(KINDS)})"
        shown = value if isinstance(value, str | int | float | bool) else None
        if error["type"] == "missing" or (shown is not None and repr(shown) in message):
            shown = None
        found.append(ScenarioProblem(where, message, shown))
    return found


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """The scenario in YAML ``text``; ``ScenarioError`` naming every bad field and its value."""
    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ScenarioError(source, [ScenarioProblem("(file)", f"not valid YAML{where}: {problem}", None)]) from None
    if not isinstance(data, dict):
        raise ScenarioError(source, [ScenarioProblem("(file)", "a scenario is a YAML mapping (name:, hosts:, "
                                                                "workloads:)", None)])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(source, problems_of(exc)) from None
    problems = check_scenario(scenario)
    if problems:
        raise ScenarioError(source, problems)
    return scenario


__all__ = ["AllReduce", "AllToAll", "Background", "HostGroup", "Incast", "PauseStorm", "Permutation",
           "ROCE_DSCP", "ROCE_MTU", "Scenario", "ScenarioError", "Workload", "parse_scenario", "workload_names"]
