"""``nos up``, ``nos down``, ``nos status``: start, stop and inspect one switch."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import click
from rich.console import Console

from nos.cli.common import fail, json_option, print_json, print_table, run_dir_option
from nos.cli.show.errors import gather_errors
from nos.config.errors import ConfigFileError, ConfigValidationError
from nos.db.connector import Databases
from nos.runtime import procs
from nos.runtime.redis_server import RedisNotFound, RedisStartError, find_redis_cli
from nos.runtime.rundir import RunDir
from nos.runtime.startup import StartupError
from nos.runtime.status import collect_status
from nos.runtime.switch import BootError, Supervisor, UpOptions, check_listeners

_DETACHED_ENV = "NOS_UP_DETACHED"
_BOOT_ERRORS = (BootError, StartupError, RedisNotFound, RedisStartError, ConfigFileError, ConfigValidationError)


_ENDPOINT_ORDER = ("redis", "redis_tcp", "rest", "gnmi")


def _endpoint_lines(endpoints: dict[str, str], run: RunDir) -> list[str]:
    """What ``nos up`` prints under "Switch ready", in one order whether the endpoints came from the boot
    (foreground) or from boot.json (``-d``): the README shows it."""
    lines = []
    for name in sorted(endpoints, key=lambda n: (_ENDPOINT_ORDER + (n,)).index(n)):
        value = endpoints[name]
        if name == "redis_tcp" and "redis_password_file" in endpoints:
            value += f"  (password in {endpoints['redis_password_file']})"
        if name != "redis_password_file":
            lines.append(f"  {name:<10} {value}")
    return [*lines, f"  {'run dir':<10} {run.path}"]


@click.command()
@click.option("--sku", help="Hardware SKU (default NOS-SIM-128x400G, or the saved config's).")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Startup config_db.json (default: the run dir's saved config, else the SKU's).")
@run_dir_option
@click.option("--rest-port", type=int, help="REST port (default 8000 if free; 0 = pick one).")
@click.option("--gnmi-port", type=int, help="gNMI port (default 8080 if free; 0 = pick one).")
@click.option("--redis-port", type=int, help="Redis TCP port (default 6379 if free; 0 = pick one).")
@click.option("--redis", "redis_url", help="Use this existing Redis (URL) instead of starting one.")
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="Listen address of REST and gNMI; a non-loopback address needs credentials.")
@click.option("--auth-file", type=click.Path(dir_okay=False, path_type=Path),
              help="API credentials (default: <run dir>/credentials.json).")
@click.option("--tls-cert", type=click.Path(dir_okay=False), help="Server certificate (PEM) for REST and gNMI.")
@click.option("--tls-key", type=click.Path(dir_okay=False), help="Server private key (PEM).")
@click.option("--tls-ca", type=click.Path(dir_okay=False), help="CA of client certificates: mutual TLS.")
@click.option("--config-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where REST config-save/config-reload may name files (default: the run dir).")
@click.option("-d", "--detach", is_flag=True, help="Start in the background and return once ready.")
def up(sku: str | None, config_file: Path | None, run_dir: str | None, rest_port: int | None,
       gnmi_port: int | None, redis_port: int | None, redis_url: str | None, bind: str, auth_file: Path | None,
       tls_cert: str | None, tls_key: str | None, tls_ca: str | None, config_dir: Path | None, detach: bool) -> None:
    """Start one switch and stay in the foreground until Ctrl-C."""
    run = RunDir.resolve(run_dir)
    options = UpOptions(sku=sku, config=config_file, rest_port=rest_port, gnmi_port=gnmi_port,
                        redis_port=redis_port, redis_url=redis_url, bind=bind,
                        auth_file=auth_file.resolve() if auth_file else None,
                        tls_cert=_absolute(tls_cert), tls_key=_absolute(tls_key), tls_ca=_absolute(tls_ca),
                        config_dir=config_dir.resolve() if config_dir else None)
    try:
        check_listeners(options, run)  # fail fast, before anything starts
    except BootError as exc:
        fail(str(exc))
    if detach:
        _up_detached(run)
        return
    quiet = os.environ.get(_DETACHED_ENV) == "1"
    console = Console(stderr=True, quiet=quiet, log_path=False)
    sup = Supervisor(run, options, progress=lambda step, detail: console.log(f"[bold]{step}[/]: {detail}"))
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: sup.stop_event.set())
    code = 0
    try:
        with console.status("booting switch..."):
            endpoints = sup.boot()
        state = run.boot_state() or {}
        click.echo(f"Switch ready in {state.get('boot_seconds')} s (sku {state.get('sku')})")
        click.echo("\n".join(_endpoint_lines(endpoints, run)))
        _warn_refused(run)
        if not quiet:
            click.echo("Press Ctrl-C to stop.")
        sys.stdout.flush()
        sup.supervise()
    except _BOOT_ERRORS as exc:
        sup.fail(str(exc))
        click.echo(f"Error: {exc}", err=True)
        code = 1
    finally:
        sup.shutdown()
        if not code and not quiet:
            click.echo("Switch stopped.")
    sys.exit(code)


def _absolute(path: str | None) -> str | None:
    """A file flag as an absolute path: the daemons and later 'nos status' may run from another directory."""
    return str(Path(path).resolve()) if path else None


def _warn_refused(run: RunDir) -> None:
    """Say so when the boot left refused entries (e.g. ports the ASIC cannot run)."""
    endpoints = run.endpoints() or {}
    if "redis" not in endpoints:
        return
    dbs = Databases(endpoints["redis"])
    try:
        refused = gather_errors(dbs)
    finally:
        dbs.close()
    if refused:
        click.echo(f"Warning: {len(refused)} entries were refused; see 'nos show errors'", err=True)


def _up_detached(run: RunDir) -> None:
    if run.supervisor_pid() is not None:
        fail(f"a switch is already running in {run.path} (pid {run.supervisor_pid()})")
    run.path.mkdir(parents=True, exist_ok=True)
    run.logs.mkdir(exist_ok=True)
    run.boot_file.unlink(missing_ok=True)
    argv = [a for a in sys.argv[1:] if a not in ("-d", "--detach")]
    child = procs.spawn([sys.executable, "-m", "nos.cli.main", *argv, "--run-dir", str(run.path)],
                        log_path=run.log_file("supervisor"), env={**os.environ, _DETACHED_ENV: "1"},
                        tie_to_parent=False)
    while True:
        state = run.boot_state() or {}
        if state.get("state") == "ready" and state.get("pid") == child.pid:
            click.echo(f"Switch ready in {state.get('boot_seconds')} s (sku {state.get('sku')}, pid {child.pid})")
            click.echo("\n".join(_endpoint_lines(state["endpoints"], run)))
            _warn_refused(run)
            return
        if state.get("state") == "failed":
            fail(str(state.get("error")))
        if child.poll() is not None:
            fail(f"the switch exited with status {child.returncode}; see {run.log_file('supervisor')}")
        time.sleep(0.05)


@click.command()
@run_dir_option
@click.option("--timeout", default=20.0, show_default=True, help="Seconds to wait for a clean stop.")
def down(run_dir: str | None, timeout: float) -> None:
    """Stop the switch running in the run directory."""
    run = RunDir.resolve(run_dir)
    pid = run.supervisor_pid()
    attached = run.attachment()
    if pid is None and attached is not None:
        fail(f"the switch in {run.path} is attached, not started by 'nos up' (run by {attached.get('by')}): stop it "
             f"there (e.g. docker-compose down); 'nos attach --forget --run-dir {run.path}' forgets it")
    if pid is None:
        click.echo(f"No switch is running in {run.path}.")
        return
    if not procs.terminate_and_wait(pid, timeout):
        fail(f"switch (pid {pid}) did not stop within {timeout:.0f}s")
    click.echo(f"Switch in {run.path} stopped.")


@click.command()
@run_dir_option
@json_option
def status(run_dir: str | None, as_json: bool) -> None:
    """Is the switch up and ready? (exit 0 ready, 1 not running, 2 running but not ready: converging or
    degraded). Ready means every process is alive with a fresh heartbeat, nothing waits in any hop of
    the pipeline and the ASIC holds the ports and routes APPL_DB asks for."""
    info = collect_status(RunDir.resolve(run_dir))
    if as_json:
        print_json(info)
    else:
        head = f"Switch in {info['run_dir']}: {info['state']}"
        if info["pid"]:
            head += f" (pid {info['pid']}, sku {info['sku']}"
            head += f", up {info['uptime_seconds']:.0f} s)" if "uptime_seconds" in info else ")"
        elif info.get("attached"):
            head += f" (attached, run by {info['attached']}, sku {info['sku']})"
        click.echo(head)
        if info["checks"]:
            print_table(["Check", "OK", "Detail"],
                        [[c["name"], "yes" if c["ok"] else "NO", c["detail"]] for c in info["checks"]])
    sys.exit(0 if info["ready"] else 1 if info["state"] == "down" else 2)


@click.command("redis-cli", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@run_dir_option
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def redis_cli(run_dir: str | None, args: tuple[str, ...]) -> None:
    """Run redis-cli on the switch's database, e.g. nos redis-cli -n 4 hgetall 'PORT|Ethernet0'."""
    run = RunDir.resolve(run_dir)
    endpoints = run.endpoints()
    if not endpoints:
        fail(f"no switch is running in {run.path}")
    try:
        binary = find_redis_cli()
    except RedisNotFound as exc:
        fail(str(exc))
    socket_path = endpoints["redis"].removeprefix("unix://")
    os.execv(binary, [str(binary), "-s", socket_path, *args])
