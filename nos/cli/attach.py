"""``nos attach``: point the ``nos`` commands at a switch that ``nos up`` did not start.

A docker-compose switch (``docker/docker-compose.yml``) runs its daemons in containers that share a run
directory with the host (a bind mount: its ``config_db.json``, ``credentials.json``, ``redis.pass`` and
Redis' unix socket ``redis.sock``). ``nos attach --run-dir DIR`` waits until that socket answers with
CONFIG_DB loaded, then writes the run dir's ``endpoints.json`` (the socket, plus the REST, gNMI and Redis
TCP addresses the containers' ports are published at, as given) and ``boot.json`` with state
``attached``. From then on every command takes ``--run-dir DIR`` as for a switch of ``nos up``: ``nos
status`` judges each daemon by its heartbeat (the processes are not this host's) and asks the APIs at
the published addresses, ``nos config save`` writes the volume's ``config_db.json`` (what the
``database`` container boots from). ``nos down`` does not stop an attached switch (``docker-compose
down`` does); ``nos attach --forget`` removes what ``attach`` wrote.
"""

from __future__ import annotations

import time

import click

from nos.cli.common import fail, run_dir_option
from nos.db import ConfigDBConnector, Table
from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.runtime.rundir import ATTACHED, RunDir, write_json_atomic
from nos.runtime.status import HEARTBEAT_DAEMONS
from nos.schema.dbconfig import CONFIG_DB, default_db_config
from nos.schema.tables import CFG_DEVICE_METADATA_TABLE_NAME, CFG_MCLAG_TABLE_NAME


def attach_records(run: RunDir, *, rest: str | None, gnmi: str | None, redis_tcp: str | None, by: str,
                   sku: str | None, mclag: bool) -> tuple[dict[str, str], dict[str, object]]:
    """(endpoints.json, boot.json) of an attached switch (pure)."""
    endpoints = {"redis": f"unix://{run.path / 'redis.sock'}"}
    if redis_tcp:
        endpoints.update(redis_tcp=redis_tcp, redis_password_file=str(run.redis_password_file))
    if rest:
        endpoints["rest"] = rest.rstrip("/")
    if gnmi:
        endpoints["gnmi"] = gnmi
    daemons = [*HEARTBEAT_DAEMONS, *(["iccpd"] if mclag else [])]
    boot: dict[str, object] = {"state": ATTACHED, "by": by, "sku": sku, "endpoints": endpoints,
                               "daemons": daemons, "heartbeat_daemons": daemons, "attached_at": time.time()}
    return endpoints, boot


def _tcp_port(url: str | None) -> int:
    if not url:
        return 0
    try:
        return int(url.rsplit(":", 1)[1].split("/")[0])
    except (IndexError, ValueError):
        fail(f"--redis-tcp {url}: not a redis://HOST:PORT URL")


def _await_database(run: RunDir, timeout: float) -> tuple[str | None, bool]:
    """(hwsku, has an MC-LAG domain) once the run dir's Redis answers with CONFIG_DB loaded."""
    socket_path = run.path / "redis.sock"
    deadline = time.monotonic() + timeout
    last = "no socket yet"
    while True:
        if socket_path.exists():
            dbs = Databases(f"unix://{socket_path}")
            try:
                cdb = ConfigDBConnector(dbs[CONFIG_DB])
                if cdb.is_initialized():
                    meta = Table(dbs[CONFIG_DB], CFG_DEVICE_METADATA_TABLE_NAME).get("localhost") or {}
                    return meta.get("hwsku"), bool(Table(dbs[CONFIG_DB], CFG_MCLAG_TABLE_NAME).keys())
                last = "CONFIG_DB not loaded yet"
            except DbError as exc:
                last = str(exc)
            finally:
                dbs.close()
        if time.monotonic() > deadline:
            fail(f"no switch database answers at {socket_path} within {timeout:g}s ({last}); is the switch's "
                 "database container up, with this directory as its run dir volume?")
        time.sleep(0.1)


@click.command()
@run_dir_option
@click.option("--rest", help="REST URL the switch's port is published at, e.g. http://127.0.0.1:8000.")
@click.option("--gnmi", help="gNMI HOST:PORT it is published at, e.g. 127.0.0.1:8080.")
@click.option("--redis-tcp", help="The Redis TCP guard's published URL, e.g. redis://127.0.0.1:6379.")
@click.option("--by", default="docker-compose", show_default=True, help="What runs the switch (shown by status).")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds to wait for the database to answer.")
@click.option("--forget", is_flag=True, help="Remove what an earlier attach wrote (the switch keeps running).")
def attach(run_dir: str | None, rest: str | None, gnmi: str | None, redis_tcp: str | None, by: str,
           timeout: float, forget: bool) -> None:
    """Point the nos commands at a switch whose processes run elsewhere (docker-compose's containers)
    and share this run directory."""
    run = RunDir.resolve(run_dir)
    if run.supervisor_pid() is not None:
        fail(f"a switch of 'nos up' runs in {run.path} (pid {run.supervisor_pid()}): nothing to attach")
    if forget:
        if run.attachment() is not None:
            for path in (run.endpoints_file, run.boot_file, run.db_config_file):
                path.unlink(missing_ok=True)
        click.echo(f"Run dir {run.path} is not attached to a switch.")
        return
    sku, mclag = _await_database(run, timeout)
    endpoints, boot = attach_records(run, rest=rest, gnmi=gnmi, redis_tcp=redis_tcp, by=by, sku=sku, mclag=mclag)
    write_json_atomic(run.db_config_file, default_db_config().rendered(unix_socket=str(run.path / "redis.sock"),
                                                                       port=_tcp_port(redis_tcp)))
    write_json_atomic(run.endpoints_file, endpoints)
    write_json_atomic(run.boot_file, boot)
    click.echo(f"Attached to the switch in {run.path} (sku {sku}, run by {by}):")
    for name in ("redis", "redis_tcp", "rest", "gnmi"):
        if name in endpoints:
            click.echo(f"  {name:<10} {endpoints[name]}")
    click.echo(f"Commands take --run-dir {run.path} (or NOS_RUN_DIR); 'nos status' says when it is ready.")
