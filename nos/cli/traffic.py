"""``nos traffic run SCENARIO`` and ``nos traffic list``: traffic scenarios on the running switch's
simulated ASIC.

``run`` validates the scenario (every bad field named) and its ports against CONFIG_DB before it asks
syncd_sim (``nos.traffic.client``), shows a progress bar while a run takes longer than a moment, then
prints the summary (``nos.traffic.summary``) or the whole result (``--json``) and draws ``--plot``.
SCENARIO is a file, or the name of one in ``configs/scenarios`` (``nos traffic list``).
Exit codes: 0 done, 1 the switch is not running or the run failed or timed out, 2 the scenario is invalid.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from nos.cli.common import connect, fail, json_option, print_json, print_table, run_dir_option
from nos.db import Table
from nos.db.errors import DbError
from nos.paths import configs_dir
from nos.schema.dbconfig import CONFIG_DB
from nos.schema.tables import CFG_PORT_TABLE_NAME
from nos.traffic.client import JobStatus, run_scenario
from nos.traffic.errors import ScenarioError, TrafficError

INVALID = 2
SHOW_PROGRESS_AFTER_S = 0.5


def scenarios_dir() -> Path:
    return configs_dir() / "scenarios"


def find_scenario(given: str) -> Path:
    """A scenario file: the path given, else ``configs/scenarios/<given>[.yaml]``."""
    for path in (Path(given), scenarios_dir() / given, scenarios_dir() / f"{given}.yaml"):
        if path.is_file():
            return path
    fail(f"no scenario file {given!r} (and none of that name in {scenarios_dir()}; see 'nos traffic list')", INVALID)


class ProgressBar:
    """The job's ``progress`` as a rich bar on stderr, shown once a run has taken ``SHOW_PROGRESS_AFTER_S``
    (never when the console is not a terminal or ``enabled`` is False)."""

    def __init__(self, enabled: bool, console: Console | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        out = console or Console(stderr=True)
        self.enabled = enabled and out.is_terminal
        self.clock = clock
        self.began = clock()
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                            TimeElapsedColumn(), console=out, transient=True)
        self.task: TaskID | None = None

    def __enter__(self) -> ProgressBar:
        return self

    def __call__(self, status: JobStatus) -> None:
        if not self.enabled or self.clock() - self.began < SHOW_PROGRESS_AFTER_S:
            return
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("queued", total=1.0)
        what = status.state
        if status.state == "running":
            what += f", {status.sim_time_s * 1e3:.3f} ms simulated"
        self.bar.update(self.task, completed=status.progress, description=what)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.task is not None:
            self.bar.stop()


def switch_ports(dbs: Any) -> list[str]:
    return Table(dbs[CONFIG_DB], CFG_PORT_TABLE_NAME).keys()


@click.group("traffic")
def traffic() -> None:
    """Traffic scenarios on the simulated ASIC (RoCE hosts, incast, AllReduce, ...)."""


@traffic.command("run")
@click.argument("scenario")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Draw queue depth, rates and pauses (PNG).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True), default=300.0,
              show_default=True, help="Give up after this many seconds (wall time).")
@json_option
@run_dir_option
def run_command(scenario: str, plot_path: str | None, timeout_s: float, as_json: bool, run_dir: str | None) -> None:
    """Run SCENARIO (a YAML file, or a name from 'nos traffic list') against the switch's programmed state."""
    from nos.traffic.hosts import check_against_ports  # pydantic models and YAML: only when running
    from nos.traffic.scenario import parse_scenario
    path = find_scenario(scenario)
    text = path.read_text()
    try:
        parsed = parse_scenario(text, str(path))
    except ScenarioError as exc:
        fail(f"invalid scenario {exc}", INVALID)
    _run, dbs = connect(run_dir)
    try:
        check_against_ports(parsed, switch_ports(dbs))
        with ProgressBar(not as_json) as bar:
            document = run_scenario(dbs, text, timeout_s=timeout_s, progress=bar)
    except ScenarioError as exc:
        fail(f"invalid scenario {exc}", INVALID)
    except TrafficError as exc:
        fail(f"traffic run {parsed.name!r}: {exc}")
    except DbError as exc:
        fail(f"the switch's database: {exc}")
    if plot_path:
        from nos.traffic.plot import draw  # matplotlib only when asked for
        draw(document, plot_path)
    if as_json:
        print_json(document)
        return
    from nos.traffic.summary import render
    render(document)
    if plot_path:
        click.echo(f"Plot written to {plot_path}")


@traffic.command("list")
@json_option
def list_command(as_json: bool) -> None:
    """The scenarios in configs/scenarios."""
    from nos.traffic.scenario import parse_scenario
    rows = []
    for path in sorted(scenarios_dir().glob("*.yaml")):
        try:
            parsed = parse_scenario(path.read_text(), str(path))
            rows.append({"name": path.stem, "description": parsed.description.strip().split("\n")[0],
                         "workloads": ", ".join(w.kind for w in parsed.workloads)})
        except ScenarioError as exc:
            rows.append({"name": path.stem, "description": f"(invalid: {exc})", "workloads": ""})
    if as_json:
        print_json(rows)
        return
    print_table(["Scenario", "Workloads", "Description"], [[r["name"], r["workloads"], r["description"]] for r in rows])


__all__ = ["traffic"]
