"""The lab supervisor: starts every switch of a lab, keeps their links real, stops them together.

``python -m nos.lab.supervisor FILE LABDIR`` (what ``nos lab up`` runs in the background). Boot: the
topology is checked (every problem named, nothing started), each switch's startup config generated
into ``configs/<node>.json``, and every switch started at once as a full ``nos up`` of its own (own
Redis, daemons, REST and gNMI on free ports) in ``nodes/<node>/``; ``lab.json`` says ``ready`` once
all are, or ``failed`` with the reason, and then what was started is stopped. Each switch dies with
the supervisor (``PR_SET_PDEATHSIG``), so a killed lab leaves nothing running.

While the lab runs, every ``LINK_POLL_S`` the supervisor reads the admin state of every cabled port
(APPL_DB ``PORT_TABLE``) and each end's ``NOS_LINK_TABLE`` rows, and writes the rows that differ from
``nos.lab.links.carriers`` (so a switch whose Redis or syncd restarted is put right on the next round;
``nos.lab.linkkeeper``, which a docker-compose lab's ``links`` container runs too).
Polling rather than keyspace subscriptions: a link state change reaches the far end within one round
(0.1 s) whatever restarted, at a few pipelined reads per switch per round.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis import RedisError

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.db.table import Table
from nos.lab.addressing import LabPlan, iccp_hosts, management_net, plan, role_of, startup_configs
from nos.lab.labdir import LabDir
from nos.lab.linkkeeper import LinkKeeper
from nos.lab.model import Topology
from nos.lab.topology import TopologyError, check_fits, load_topology
from nos.runtime import procs
from nos.runtime.forkserver import DAEMON_PRELOAD, Forked, ForkServer, ForkServerGone, reap_strays, wanted
from nos.runtime.redis_server import port_is_free
from nos.runtime.rundir import write_json_atomic
from nos.runtime.status import switch_ready
from nos.schema.config import Config
from nos.schema.dbconfig import APPL_DB, STATE_DB
from nos.schema.tables import APP_PORT_TABLE_NAME, NOS_LINK_TABLE

log = logging.getLogger("nos.lab")

PRODUCES = ((STATE_DB, NOS_LINK_TABLE),)
READS = ((APPL_DB, APP_PORT_TABLE_NAME),)

BOOT_TIMEOUT_S = float(os.environ.get("NOS_LAB_BOOT_TIMEOUT", "120"))  # seconds for every switch to be ready
LINK_POLL_S = 0.1
STOP_TIMEOUT_S = 30.0
STABLE_S = 60.0        # a switch up this long that dies is restarted after 1 s again
MAX_BACKOFF_S = 30.0
DETACHED_ENV = "NOS_UP_DETACHED"  # as nos.cli.switch: a switch started for a lab prints nothing
ICCP_HOSTS_ENV = "NOS_ICCP_HOSTS"  # read by iccpd (its package docstring)
ICCP_PORT = 8888                   # iccpd's ICCP_TCP_PORT
# A switch's supervisor and its daemons: imported once in the lab's fork server, then every switch's
# supervisor is forked from it, and its own fork server (a fork of it) has them all already.
LAB_PRELOAD = ("nos.cli.main", "nos.cli.switch", *DAEMON_PRELOAD)


class LabBootError(RuntimeError):
    """The lab could not be started (the message names the switch and why)."""


def switch_argv(lab: LabDir, node: str) -> list[str]:
    """The ``nos up`` of one lab switch: its generated config, its run dir, free ports."""
    return [sys.executable, "-m", "nos.cli.main", "up", "--config", str(lab.config_file(node)),
            "--run-dir", str(lab.run_dir(node).path), "--rest-port", "0", "--gnmi-port", "0", "--redis-port", "0"]


class LabSupervisor:
    """One lab's switches and links (see the module docstring)."""

    def __init__(self, topo: Topology, lab: LabDir, source: Path, progress: Callable[[str], None] = log.info,
                 forks: ForkServer | None = None, generated: tuple[LabPlan, dict[str, Config]] | None = None) -> None:
        self.topo = topo
        self.forks = forks
        self.generated = generated  # the plan and configs already made from ``topo`` (None: made at boot)
        self.lab = lab
        self.source = source
        self.progress = progress
        self.children: dict[str, subprocess.Popen[bytes] | Forked] = {}
        self.dbs: dict[str, Databases] = {}
        self.stop_event = threading.Event()
        self.state: dict[str, Any] = {}
        self.started_at: dict[str, float] = {}    # when each switch was last seen ready
        self.backoff: dict[str, float] = {}
        self.restart_at: dict[str, float] = {}
        self.restarts: dict[str, int] = {}
        self.links = LinkKeeper(topo, self.dbs, lab.cuts)

    # -- boot -----------------------------------------------------------------------------------
    def _write(self, **changes: Any) -> None:
        self.state.update(changes)
        self.lab.write_state(self.state)

    def _env(self) -> dict[str, str]:
        env = {**os.environ, DETACHED_ENV: "1"}
        if self.topo.mclag:
            env[ICCP_HOSTS_ENV] = str(self.lab.iccp_hosts_file)
        return env

    def boot(self) -> None:
        started = time.monotonic()
        switches = [n.name for n in self.topo.switches()]
        self._write(name=self.topo.name, state="starting", pid=os.getpid(), topology=str(self.source),
                    started_at=time.time(), nodes={name: {"role": role_of(self.topo, name),
                                                           "run_dir": str(self.lab.run_dir(name).path)}
                                                    for name in switches})
        lab_plan, configs = self.generated or (plan(self.topo), None)
        for name, config in (configs or startup_configs(self.topo, lab_plan)).items():
            write_json_atomic(self.lab.config_file(name), config)
        self.lab.log_file.parent.mkdir(parents=True, exist_ok=True)
        if self.topo.mclag:   # where each MC-LAG switch's iccpd listens (nos.lab.addressing.iccp_hosts)
            net = management_net(self.topo, str(self.lab.path), ICCP_PORT, lambda host, port: port_is_free(port, host))
            write_json_atomic(self.lab.iccp_hosts_file, iccp_hosts(self.topo, lab_plan.addressing, net))
        env = self._env()
        for name in switches:
            run = self.lab.run_dir(name)
            run.path.mkdir(parents=True, exist_ok=True)
            run.boot_file.unlink(missing_ok=True)
            self.children[name] = self._spawn(name, env)
        self.progress(f"started {len(switches)} switches")
        self._await_switches(started)
        self.sync_links()
        self._await_settled(started)
        self._await_mclag(started)
        self._write(state="ready", boot_seconds=round(time.monotonic() - started, 3))
        self.progress(f"lab {self.topo.name} ready in {time.monotonic() - started:.2f}s")

    def _spawn(self, name: str, env: dict[str, str]) -> subprocess.Popen[bytes] | Forked:
        """One switch's ``nos up``: forked from the lab's fork server (every module of a switch is imported
        there once for the whole lab), or started with ``python -m`` when there is none."""
        argv, log_path = switch_argv(self.lab, name), self.lab.path / "logs" / f"{name}.log"
        if self.forks is not None:
            try:
                return self.forks.spawn(argv, log_path=log_path, env=env)
            except ForkServerGone as exc:
                log.warning("lab.fork_server_gone node=%s error=%s (started by exec)", name, exc)
        return procs.spawn(argv, env=env, log_path=log_path)

    def _await_switches(self, started: float) -> None:
        waiting = set(self.children)
        deadline = started + BOOT_TIMEOUT_S
        while waiting:
            for name in sorted(waiting):
                run, child = self.lab.run_dir(name), self.children[name]
                boot = run.boot_state() or {}
                if boot.get("state") == "ready" and boot.get("pid") == child.pid:
                    waiting.discard(name)
                    self.dbs[name] = Databases(boot["endpoints"]["redis"])
                    self.started_at[name] = time.monotonic()
                    self._write(nodes={**self.state["nodes"],
                                       name: {**self.state["nodes"][name], "endpoints": boot["endpoints"],
                                              "boot_seconds": boot.get("boot_seconds")}})
                    self.sync_links()  # its links as soon as it can hear them
                elif boot.get("state") == "failed" and boot.get("pid") == child.pid:
                    raise LabBootError(f"{name}: {boot.get('error')} (see {self.lab.path / 'logs' / (name + '.log')})")
                elif child.poll() is not None:
                    raise LabBootError(f"{name}: its switch exited with status {child.returncode} "
                                       f"(see {self.lab.path / 'logs' / (name + '.log')})")
            if time.monotonic() > deadline:
                raise LabBootError(f"not ready within {BOOT_TIMEOUT_S:.0f} s: {', '.join(sorted(waiting))}")
            if waiting:
                self.stop_event.wait(0.05)
                if self.stop_event.is_set():
                    raise LabBootError("stopped while booting")

    def _await_settled(self, started: float) -> None:
        """Every switch's own status ready (its generated routes in its ASIC, nothing in flight): what
        ``nos lab status`` then shows."""
        waiting = set(self.children)
        deadline = started + BOOT_TIMEOUT_S
        while waiting:
            waiting -= {name for name in sorted(waiting) if switch_ready(self.lab.run_dir(name))}
            if waiting and time.monotonic() > deadline:
                raise LabBootError(f"not ready within {BOOT_TIMEOUT_S:.0f} s: {', '.join(sorted(waiting))} "
                                   "(see 'nos --node NODE status')")
            if waiting and self.stop_event.wait(0.1):
                raise LabBootError("stopped while booting")
            self.sync_links()

    def _mclag_up(self, name: str) -> bool:
        dbs = self.dbs.get(name)
        if dbs is None:
            return False
        try:
            rows = Table(dbs["STATE_DB"], "MCLAG_TABLE").get_all()
        except (DbError, RedisError, OSError):
            return False
        return bool(rows) and all(r.get("oper_status") == "up" for r in rows.values())

    def _await_mclag(self, started: float) -> None:
        """Every MC-LAG pair's session up on both switches (iccpd connects within a second of booting):
        a lab is ready when what it was started for works."""
        waiting = {name for pair in self.topo.mclag for name in pair.peers}
        deadline = started + BOOT_TIMEOUT_S
        while waiting:
            waiting -= {name for name in sorted(waiting) if self._mclag_up(name)}
            if waiting and time.monotonic() > deadline:
                raise LabBootError(f"MC-LAG session not up within {BOOT_TIMEOUT_S:.0f} s on "
                                   f"{', '.join(sorted(waiting))} (see 'nos --node NODE show mclag brief' and its "
                                   "iccpd log)")
            if waiting and self.stop_event.wait(0.1):
                raise LabBootError("stopped while booting")
            self.sync_links()

    # -- links ----------------------------------------------------------------------------------
    def sync_links(self) -> int:
        """One round of ``nos.lab.linkkeeper.LinkKeeper.sync`` over the switches that are up; returns how
        many rows were written."""
        return self.links.sync()

    # -- run and stop ---------------------------------------------------------------------------
    def supervise(self) -> None:
        """Keep the links until stopped. A switch that exits is dark at its peers at once and started
        again (its saved state comes back from its run dir, as a rebooted switch's does) after a
        back-off of 1 s, doubling to ``MAX_BACKOFF_S`` while it keeps dying within ``STABLE_S``."""
        while not self.stop_event.wait(LINK_POLL_S):
            for name in list(self.children):
                self._watch(name)
            self.sync_links()
            self._reap_strays()

    def _reap_strays(self) -> None:
        """A subreaper adopts what outlives its parent (a killed switch's daemons, before they end):
        reaped so that no zombie stays, and the fork server too if it has died."""
        if self.forks is not None:
            self.forks.alive()
            reap_strays([c.pid for c in self.children.values()] + [self.forks.pid])

    def _node(self, name: str, **changes: Any) -> None:
        self._write(nodes={**self.state["nodes"], name: {**self.state["nodes"][name], **changes}})

    def _watch(self, name: str) -> None:
        child, now = self.children[name], time.monotonic()
        if child.poll() is not None and name in self.dbs:   # it just died
            log.error("lab.switch_exited node=%s status=%s", name, child.returncode)
            self.dbs.pop(name).close()
            stable = now - self.started_at.get(name, 0.0) >= STABLE_S
            self.backoff[name] = 1.0 if stable else min(MAX_BACKOFF_S, self.backoff.get(name, 0.5) * 2)
            self.restart_at[name] = now + self.backoff[name]
            self._node(name, state="restarting", exited=child.returncode, restarts=self.restarts.get(name, 0))
        elif child.poll() is not None and now >= self.restart_at.get(name, now):
            self.restart_at[name] = now + MAX_BACKOFF_S  # until it is seen booting or dead again
            self.restarts[name] = self.restarts.get(name, 0) + 1
            log.info("lab.switch_restart node=%s restart=%d", name, self.restarts[name])
            self.lab.run_dir(name).boot_file.unlink(missing_ok=True)
            self.children[name] = self._spawn(name, self._env())
        elif child.poll() is None and name not in self.dbs:  # restarted: ready yet?
            boot = self.lab.run_dir(name).boot_state() or {}
            if boot.get("state") == "ready" and boot.get("pid") == child.pid:
                self.dbs[name] = Databases(boot["endpoints"]["redis"])
                self.started_at[name] = now
                self._node(name, state="running", endpoints=boot["endpoints"], restarts=self.restarts.get(name, 0))
                log.info("lab.switch_back node=%s", name)

    def shutdown(self) -> None:
        if self.state.get("state") not in ("failed", None):
            self._write(state="stopping")
        for child in self.children.values():
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for child in self.children.values():
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for dbs in self.dbs.values():
            dbs.close()
        self.dbs.clear()
        if self.forks is not None:
            self.forks.close()
        if self.state.get("state") != "failed":
            self._write(state="stopped")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    forks = ForkServer.start(LAB_PRELOAD) if wanted() else None  # first: it imports while the topology is checked
    source, lab = Path(args[0]).resolve(), LabDir(Path(args[1]).resolve())
    lab.path.mkdir(parents=True, exist_ok=True)
    lab.log_file.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=lab.log_file, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        topo = load_topology(source)
        check_fits(topo)
        lab_plan = plan(topo)
        configs = startup_configs(topo, lab_plan)
    except TopologyError as exc:
        lab.write_state({"name": lab.name, "state": "failed", "pid": os.getpid(), "error": str(exc)})
        if forks is not None:
            forks.close()
        return 2
    lab.pid_file.write_text(f"{os.getpid()}\n")
    sup = LabSupervisor(topo, lab, source, forks=forks, generated=(lab_plan, configs))
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: sup.stop_event.set())
    code = 0
    try:
        sup.boot()
        sup.supervise()
    except LabBootError as exc:
        log.error("lab.boot_failed %s", exc)
        sup._write(state="failed", error=str(exc))
        code = 1
    finally:
        sup.shutdown()
        if lab.pid_file.exists() and lab.pid_file.read_text().strip() == str(os.getpid()):
            lab.pid_file.unlink()
    return code


if __name__ == "__main__":
    sys.exit(main())
