"""Keeping a lab's links real: each round, every cabled port's far-end state into its NOS_LINK_TABLE row.

One round (``LinkKeeper.sync``) reads the admin state of every cabled port (APPL_DB ``PORT_TABLE``) and
each end's ``NOS_LINK_TABLE`` rows, and writes the rows that differ from ``nos.lab.links.carriers`` (so a
switch whose Redis or syncd restarted is put right on the next round). A switch whose database does not
answer counts as dark at its peers. Used by the lab supervisor (``nos lab up``: switches of ``nos up``)
and, for a lab in docker-compose (``nos lab compose``), by its ``links`` container:
``python -m nos.lab.linkkeeper TOPOLOGY --node NAME=REDIS_URL ... [--cuts FILE]``.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from redis import RedisError

from nos.daemon.logs import setup_logging
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.db.table import Table
from nos.lab.links import LINK_TABLE, PortLink, cabled_ports, carriers
from nos.lab.model import Endpoint, Topology
from nos.lab.topology import TopologyError, load_topology
from nos.runtime.rundir import read_json, write_json_atomic
from nos.schema.dbconfig import APPL_DB, STATE_DB
from nos.schema.tables import APP_PORT_TABLE_NAME, NOS_LINK_TABLE

log = logging.getLogger("nos.lab")

PRODUCES = ((STATE_DB, NOS_LINK_TABLE),)
READS = ((APPL_DB, APP_PORT_TABLE_NAME),)
POLL_S = 0.1

Cuts = Callable[[], frozenset[str]]


class LinkKeeper:
    """The links of ``topo`` between the switches whose databases are in ``dbs`` (a mapping the owner
    may change between rounds: a switch that restarts leaves it and comes back)."""

    def __init__(self, topo: Topology, dbs: Mapping[str, Databases], cuts: Cuts) -> None:
        self.topo = topo
        self.dbs = dbs
        self.cuts = cuts
        self.answered: dict[str, bool] = {}  # at the last round

    def _read(self, name: str) -> tuple[dict[str, bool], dict[str, dict[str, str]]] | None:
        """Switch ``name``'s cabled ports' admin state and its NOS_LINK_TABLE rows; None when its
        database does not answer."""
        dbs = self.dbs.get(name)
        if dbs is None:
            return None
        ports = sorted(set(cabled_ports(self.topo, name)) | {h.port for h in self.topo.hosts_on(name)})
        try:
            appl, state = dbs[APPL_DB], dbs[STATE_DB]
            admin_pipe = appl.client.pipeline(transaction=False)
            for port in ports:
                admin_pipe.hget(appl.row_name(APP_PORT_TABLE_NAME, port), "admin_status")
            rows_pipe = state.client.pipeline(transaction=False)
            for port in ports:
                rows_pipe.hgetall(state.row_name(LINK_TABLE, port))
            admin, rows = admin_pipe.execute(), rows_pipe.execute()
        except (DbError, RedisError, OSError) as exc:  # restarting or gone: try next round
            if self.answered.get(name, True):
                log.warning("lab.links.unreachable node=%s error=%s", name, exc)
            return None
        return ({p: a == "up" for p, a in zip(ports, admin, strict=True)},
                {p: r for p, r in zip(ports, rows, strict=True)})

    def sync(self) -> int:
        """One round: write every NOS_LINK_TABLE row that differs from what the links say. Returns
        how many rows were written."""
        seen = {name: self._read(name) for name in list(self.dbs)}
        self.answered = {name: got is not None for name, got in seen.items()}
        admin = {Endpoint(name, port): up for name, got in seen.items() if got for port, up in got[0].items()}
        wanted = carriers(self.topo, admin, self.cuts())
        written = 0
        for name, got in seen.items():
            if got is None:
                continue
            changes = {end.port: row for end, row in wanted.items()
                       if end.node == name and got[1].get(end.port) != row.fields()}
            if changes:
                written += self._write_rows(name, changes)
        return written

    def _write_rows(self, name: str, rows: dict[str, PortLink]) -> int:
        table = Table(self.dbs[name][STATE_DB], LINK_TABLE)
        try:
            for port, row in rows.items():
                table.set(port, row.fields())
        except (DbError, RedisError, OSError) as exc:  # gone between read and write: next round
            log.warning("lab.links.write_failed node=%s error=%s", name, exc)
            return 0
        for port, row in rows.items():
            log.info("lab.link node=%s port=%s peer=%s carrier=%s", name, port, row.peer, row.carrier)
        return len(rows)


def file_cuts(path: Path | None) -> Cuts:
    """The cut links listed in the JSON file at ``path`` (``nos.lab.labdir.LabDir.cuts``' format), read
    each round; none when there is no such file."""
    def read() -> frozenset[str]:
        data = read_json(path) if path is not None else None
        return frozenset(str(c) for c in data) if isinstance(data, list) else frozenset()
    return read


def parse_nodes(pairs: Sequence[str], topo: Topology) -> dict[str, str]:
    """``NAME=URL`` pairs -> {switch: Redis URL}; ValueError naming a bad pair, an unknown switch or a
    switch left out (pure)."""
    urls: dict[str, str] = {}
    for pair in pairs:
        name, sep, url = pair.partition("=")
        if not sep or not name or not url:
            raise ValueError(f"--node {pair!r}: expected NAME=REDIS_URL")
        urls[name] = url
    switches = {n.name for n in topo.switches()}
    unknown, missing = sorted(set(urls) - switches), sorted(switches - set(urls))
    if unknown:
        raise ValueError(f"--node: no switch {', '.join(unknown)} in lab {topo.name}")
    if missing:
        raise ValueError(f"--node: no Redis given for {', '.join(missing)}")
    return urls


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nos.lab.linkkeeper", description=__doc__.splitlines()[0])
    parser.add_argument("topology", type=Path)
    parser.add_argument("--node", action="append", default=[], metavar="NAME=REDIS_URL",
                        help="each switch of the lab and its Redis (unix:///path/redis.sock or redis://...)")
    parser.add_argument("--cuts", type=Path, help="a JSON list of cut links (link ids), read every round")
    parser.add_argument("--health-file", type=Path, help="written while every switch answers, removed otherwise")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    setup_logging(args.log_level)
    try:
        topo = load_topology(args.topology)
        urls = parse_nodes(args.node, topo)
    except (TopologyError, ValueError) as exc:
        print(f"linkkeeper: {exc}", file=sys.stderr)
        return 2
    dbs = {name: Databases(url) for name, url in urls.items()}
    keeper = LinkKeeper(topo, dbs, file_cuts(args.cuts))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    log.info("lab.linkkeeper.start lab=%s switches=%s links=%d", topo.name, ",".join(sorted(urls)), len(topo.links))
    next_health = 0.0
    try:
        while not stop.wait(POLL_S):
            keeper.sync()
            if args.health_file is not None and time.monotonic() >= next_health:
                next_health = time.monotonic() + 1.0
                _health(args.health_file, keeper.answered)
    finally:
        for db in dbs.values():
            db.close()
    return 0


def _health(path: Path, answered: Mapping[str, bool]) -> None:
    if answered and all(answered.values()):
        write_json_atomic(path, {"healthy": True, "switches": sorted(answered)})
    else:
        path.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["LinkKeeper", "file_cuts", "main", "parse_nodes"]
