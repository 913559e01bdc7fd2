"""htsim's connection matrices (``.cm``) as fabric flows, and back: the same scenario runs on htsim's
``htsim_roce`` and on this model (pure).

The format, as htsim's ``ConnectionMatrix::load`` reads it (Broadcom/csg-htsim, sim/datacenter):

* headers ``Nodes N``, ``Connections C``, ``Triggers T`` (``Failures F`` is refused: failures are not
  modelled); ``#`` starts a comment line;
* a connection ``S->D id I [start PS] [trigger T] size B [send_done_trigger T] [recv_done_trigger T]
  [prio P]``: hosts S and D (0-based, htsim's host order, which is ``fastpath.fabric.topo``'s), a
  flow id (not 0, unique), a start time in picoseconds or the trigger that starts it, and the
  trigger it fires when its sender has the last ACK (``send_done``) or its receiver the last byte
  (``recv_done``);
* a trigger ``trigger id T oneshot|barrier [count N]``: a oneshot fires its flows on its one
  activation (htsim aborts on a second), a barrier on its N-th.

Mapped onto ``FabricFlows``: a triggered flow depends on every flow that activates its trigger (a
barrier waits for all of them, a oneshot has exactly one), and starts when they have finished. The
model's finish is the last byte received, so ``send_done`` and ``recv_done`` are taken as the same
moment (a simplification: htsim's ``send_done`` comes one ACK's path latency later). ``multishot``
triggers (targets fired one by one in activation order) have no static dependency form and are
refused, as is a barrier whose count differs from its activators. ``prio`` is refused unless 0.
Every problem is named with its line.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fastpath.fabric.errors import FabricError
from fastpath.fabric.flows import FabricFlows

PS = 1e-12
KINDS = ("oneshot", "barrier")


@dataclass
class _Conn:
    line: int
    src: int
    dst: int
    flow_id: int = 0
    size: int = 0
    start_ps: float | None = None
    trigger: int | None = None
    fires: list[int] = field(default_factory=list)


@dataclass
class _Trigger:
    line: int
    kind: str = ""
    count: int | None = None


@dataclass(frozen=True)
class ConnectionMatrix:
    """A parsed matrix: its node count, its flows (in file order) and their htsim flow ids."""

    nodes: int
    flows: FabricFlows
    flow_ids: tuple[int, ...]


def _int(text: str, what: str, line: int, problems: list[str]) -> int:
    try:
        return int(text)
    except ValueError:
        problems.append(f"line {line}: {what} {text!r} is not an integer")
        return 0


def _start(conn: _Conn, value: str, line: int, problems: list[str]) -> None:
    try:
        conn.start_ps = float(value)
    except ValueError:
        problems.append(f"line {line}: start {value!r} is not a number (picoseconds)")


def _prio(conn: _Conn, value: str, line: int, problems: list[str]) -> None:
    if value != "0":
        problems.append(f"line {line}: prio {value!r}: only priority 0 is modelled")


def _setter(attr: str, what: str) -> Callable[[_Conn, str, int, list[str]], None]:
    def put(conn: _Conn, value: str, line: int, problems: list[str]) -> None:
        setattr(conn, attr, _int(value, what, line, problems))
    return put


def _fires(what: str) -> Callable[[_Conn, str, int, list[str]], None]:
    def put(conn: _Conn, value: str, line: int, problems: list[str]) -> None:
        conn.fires.append(_int(value, what, line, problems))
    return put


#: a connection line's words, each followed by its value
CONN_FIELDS: dict[str, Callable[[_Conn, str, int, list[str]], None]] = {
    "id": _setter("flow_id", "id"), "size": _setter("size", "size"), "start": _start,
    "trigger": _setter("trigger", "trigger"), "send_done_trigger": _fires("send_done_trigger"),
    "recv_done_trigger": _fires("recv_done_trigger"), "prio": _prio,
}


def _connection(tokens: list[str], line: int, problems: list[str]) -> _Conn:
    src_text, _, dst_text = tokens[0].partition("->")
    conn = _Conn(line, _int(src_text, "source host", line, problems),
                 _int(dst_text, "destination host", line, problems))
    for i in range(1, len(tokens), 2):
        put = CONN_FIELDS.get(tokens[i])
        if put is None:
            problems.append(f"line {line}: unknown token {tokens[i]!r}")
            break
        if i + 1 >= len(tokens):
            problems.append(f"line {line}: {tokens[i]!r} has no value")
            break
        put(conn, tokens[i + 1], line, problems)
    return conn


def _trigger(tokens: list[str], line: int, problems: list[str]) -> tuple[int, _Trigger]:
    trig, tid, i = _Trigger(line), 0, 1
    while i < len(tokens):
        word = tokens[i]
        if word == "id" and i + 1 < len(tokens):
            tid = _int(tokens[i + 1], "trigger id", line, problems)
            i += 2
        elif word == "count" and i + 1 < len(tokens):
            trig.count = _int(tokens[i + 1], "count", line, problems)
            i += 2
        elif word in KINDS:
            trig.kind = word
            i += 1
        elif word == "multishot":
            problems.append(f"line {line}: multishot trigger: its targets start one by one in the order of "
                            "its activations, which has no static dependency form (use oneshot or barrier)")
            i += 1
        else:
            problems.append(f"line {line}: unknown trigger token {word!r}")
            break
    if tid <= 0:
        problems.append(f"line {line}: a trigger needs 'id N' with N > 0")
    return tid, trig


def _header(tokens: list[str], line: int, headers: dict[str, int], problems: list[str]) -> None:
    name = tokens[0]
    if name == "Failures":
        problems.append(f"line {line}: link and switch failures are not modelled (cut links with the fabric)")
    elif len(tokens) != 2:
        problems.append(f"line {line}: {name} needs one value")
    else:
        headers[name] = _int(tokens[1], name, line, problems)


def _read(text: str, problems: list[str]) -> tuple[dict[str, int], list[_Conn], dict[int, _Trigger]]:
    headers: dict[str, int] = {}
    conns: list[_Conn] = []
    triggers: dict[int, _Trigger] = {}
    for line, raw in enumerate(text.splitlines(), start=1):
        tokens = raw.split()
        if not tokens or tokens[0].startswith("#"):
            continue
        if tokens[0] in ("Nodes", "Connections", "Triggers", "Failures"):
            _header(tokens, line, headers, problems)
        elif "->" in tokens[0]:
            conns.append(_connection(tokens, line, problems))
        elif tokens[0] == "trigger":
            tid, trig = _trigger(tokens, line, problems)
            if tid in triggers:
                problems.append(f"line {line}: trigger {tid} is already defined on line {triggers[tid].line}")
            triggers[tid] = trig
        else:
            problems.append(f"line {line}: unknown line {tokens[0]!r}")
    return headers, conns, triggers


def _check_conn(c: _Conn, nodes: int) -> list[str]:
    where = f"line {c.line}"
    out = [f"{where}: {role} host {host} is not one of the {nodes} nodes"
           for role, host in (("source", c.src), ("destination", c.dst)) if not 0 <= host < nodes]
    if c.src == c.dst:
        out.append(f"{where}: host {c.src} sends to itself")
    if c.flow_id <= 0:
        out.append(f"{where}: needs 'id N' with N > 0 (htsim refuses flow id 0)")
    if c.size <= 0:
        out.append(f"{where}: needs 'size BYTES' > 0")
    if c.trigger is None and c.start_ps is None:
        out.append(f"{where}: needs 'start PS' or 'trigger T' (it would never start)")
    if c.trigger is not None and c.start_ps is not None:
        out.append(f"{where}: has both 'start' and 'trigger'")
    if c.start_ps is not None and c.start_ps < 0:
        out.append(f"{where}: start {c.start_ps} is negative")
    return out


def _check_conns(conns: list[_Conn], nodes: int, problems: list[str]) -> None:
    seen: dict[int, int] = {}
    for c in conns:
        problems += _check_conn(c, nodes)
        if c.flow_id > 0 and c.flow_id in seen:
            problems.append(f"line {c.line}: flow id {c.flow_id} is already used on line {seen[c.flow_id]}")
        seen.setdefault(c.flow_id, c.line)


def _deps(conns: list[_Conn], triggers: dict[int, _Trigger], problems: list[str]) -> list[list[int]]:
    activators: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(conns):
        for tid in c.fires:
            activators[tid].append(i)
    used = {c.trigger for c in conns if c.trigger is not None} | set(activators)
    for tid in sorted(t for t in used if t not in triggers):
        problems.append(f"trigger {tid}: used but not defined ('trigger id {tid} oneshot|barrier')")
    for tid, trig in sorted(triggers.items()):
        acts = activators.get(tid, [])
        if not trig.kind:
            problems.append(f"line {trig.line}: trigger {tid} needs a kind (oneshot or barrier)")
        elif trig.kind == "oneshot" and len(acts) > 1:
            problems.append(f"line {trig.line}: oneshot trigger {tid} is fired by {len(acts)} flows (htsim aborts "
                            "on a second activation; use a barrier)")
        elif trig.kind == "barrier" and trig.count is None:
            problems.append(f"line {trig.line}: barrier {tid} needs 'count N' (htsim's barrier fires on its N-th "
                            "activation)")
        elif trig.kind == "barrier" and trig.count != len(acts):
            problems.append(f"line {trig.line}: barrier {tid} counts {trig.count} activations but {len(acts)} "
                            "flows fire it")
        if not acts and any(c.trigger == tid for c in conns):
            problems.append(f"line {trig.line}: trigger {tid} starts flows but no flow fires it")
    return [list(activators.get(c.trigger, [])) if c.trigger is not None else [] for c in conns]


def _cycle(deps: list[list[int]], conns: list[_Conn]) -> str | None:
    state = [0] * len(deps)              # 0 new, 1 on the path, 2 done
    for root in range(len(deps)):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, iter(deps[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state[nxt] == 1:
                return f"line {conns[nxt].line}: flow id {conns[nxt].flow_id} waits (through triggers) on itself"
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(deps[nxt])))
    return None


def parse_connection_matrix(text: str, *, mtu: int = 4096) -> ConnectionMatrix:
    """The matrix in ``text`` as fabric flows (``FabricError`` listing every problem, with its line)."""
    problems: list[str] = []
    headers, conns, triggers = _read(text, problems)
    nodes = headers.get("Nodes", 0)
    if nodes <= 0:
        problems.append("'Nodes N' (N > 0) is missing")
    if not conns:
        problems.append("no connections ('S->D id I start PS size B')")
    if "Connections" in headers and headers["Connections"] != len(conns):
        problems.append(f"Connections says {headers['Connections']} but the file has {len(conns)}")
    if "Triggers" in headers and headers["Triggers"] != len(triggers):
        problems.append(f"Triggers says {headers['Triggers']} but the file defines {len(triggers)}")
    _check_conns(conns, nodes, problems)
    deps = _deps(conns, triggers, problems)
    if not problems and (loop := _cycle(deps, conns)):
        problems.append(loop)
    if problems:
        raise FabricError(problems)
    flows = FabricFlows.of([c.src for c in conns], [c.dst for c in conns], [c.size for c in conns],
                           start_s=[(c.start_ps or 0.0) * PS for c in conns], deps=deps, mtu=mtu)
    return ConnectionMatrix(nodes, flows, tuple(c.flow_id for c in conns))


def write_connection_matrix(flows: FabricFlows, nodes: int) -> str:
    """``flows`` as an htsim connection matrix (flow ids 1..n in order). A flow's dependencies become
    one trigger that every one of them fires on its send done (oneshot for one, barrier for more), so
    a flow may fire at most one trigger: flows sharing one dependency set share its trigger, and a
    flow in two different sets is refused (``FabricError``)."""
    n = flows.n
    sets: dict[tuple[int, ...], int] = {}
    fires: dict[int, int] = {}
    problems: list[str] = []
    trig_of = [0] * n
    for i in range(n):
        dep = tuple(sorted(int(d) for d in flows.dep_idx[flows.dep_ptr[i]:flows.dep_ptr[i + 1]]))
        if not dep:
            continue
        tid = sets.setdefault(dep, len(sets) + 1)
        trig_of[i] = tid
        for d in dep:
            if fires.setdefault(d, tid) != tid:
                problems.append(f"flow {d} would fire two triggers ({fires[d]} and {tid})")
    if problems:
        raise FabricError(problems[:20])
    if np.any(flows.gap_s[np.asarray(trig_of) > 0] > 0):
        raise FabricError(["a dependent flow's gap_s cannot be written (htsim starts it when triggered)"])
    lines = [f"Nodes {nodes}", f"Connections {n}", f"Triggers {len(sets)}"]
    for i in range(n):
        start = f"trigger {trig_of[i]}" if trig_of[i] else f"start {round(float(flows.start_s[i]) / PS)}"
        done = f" send_done_trigger {fires[i]}" if i in fires else ""
        lines.append(f"{int(flows.src[i])}->{int(flows.dst[i])} id {i + 1} {start} size {int(flows.size[i])}{done}")
    for dep, tid in sets.items():
        lines.append(f"trigger id {tid} oneshot" if len(dep) == 1 else f"trigger id {tid} barrier count {len(dep)}")
    return "\n".join(lines) + "\n"
