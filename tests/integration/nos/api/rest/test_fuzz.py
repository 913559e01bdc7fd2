"""Schema-driven fuzzing of the REST API (schemathesis over the app's own OpenAPI, plus hypothesis
patches aimed at real rows) on SONiC's Force10-S6000 default configuration.

Properties, for every generated request: no 5xx; an accepted (2xx) write leaves CONFIG_DB valid
(``validate_config(..., partial=True).ok``); a refused write leaves it unchanged. Bounded to a few
hundred requests (about 30-60 s here) and derandomised, so CI sees the same cases every run.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nos.api.rest.app import create_app
from nos.config.apply import reload_config
from nos.config.files import read_config_file
from nos.config.validate import validate_config
from nos.db import ConfigDBConnector, Databases
from nos.paths import skus_dir
from nos.schema.dbconfig import CONFIG_DB
from tests.conftest import wait_until

with warnings.catch_warnings():  # schemathesis may pull in starlette's test client (see conftest)
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    import schemathesis
    from schemathesis import GenerationMode

pytestmark = pytest.mark.integration

FUZZ = settings(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
                print_blob=True)
WRITES = ("PUT", "POST", "PATCH", "DELETE")
TRACE = "POST /api/v1/trace/packet "
VALUES = ("", "0", "1", "-1", "9100", "65536", "up", "down", "true", "rs", "none", "100000", "400000", "abc",
          "10.0.0.1/31", "Ethernet0", "Ethernet999", "1,2,3,4", "0-7", "[BUFFER_PROFILE|x]", "lossless", "\u00e9")


class Checker:
    """Calls a case on the app and checks the properties after it."""

    def __init__(self, app: Any, cdb: ConfigDBConnector) -> None:
        self.app, self.cdb = app, cdb
        self.statuses: dict[int, int] = {}

    def jobs_idle(self) -> bool:
        return all(job.finished for job in self.app.state.ctx.jobs.all())

    def check(self, method: str, status: int, before: int, idle: bool, what: str) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        # This fixture is the REST app without syncd_sim: a packet trace that passed validation can only
        # get the documented 503 "syncd_sim is not listening" (decided before anything is sent).
        assert status < 500 or (status == 503 and what.startswith(TRACE)), what
        if method not in WRITES:
            return
        if 200 <= status < 300:
            report = validate_config(self.cdb.get_config(), partial=True)
            assert report.ok, f"{what} was accepted but left CONFIG_DB invalid: {report.errors[:3]}"
        elif idle and self.jobs_idle():
            assert self.cdb.generation() == before, f"{what} was refused ({status}) but changed CONFIG_DB"

    def call(self, case: Any) -> None:
        before, idle = self.cdb.generation(), self.jobs_idle()
        reply = case.call()
        self.check(case.method.upper(), reply.status_code, before, idle,
                   f"{case.method} {case.formatted_path} query={case.query} body={case.body!r}")


@pytest.fixture
def s6000(dbs: Databases) -> ConfigDBConnector:
    cdb = ConfigDBConnector(dbs[CONFIG_DB])
    reload_config(cdb, read_config_file(skus_dir() / "Force10-S6000" / "config_db.json"))
    return cdb


@pytest.fixture
def checker(dbs: Databases, s6000: ConfigDBConnector, tmp_path: Path) -> Checker:
    return Checker(create_app(dbs, run_dir=tmp_path), s6000)


def test_fuzz_every_operation_from_the_openapi(checker: Checker) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", checker.app)
    cases = schema.as_strategy(GenerationMode.POSITIVE) | schema.as_strategy(GenerationMode.NEGATIVE)

    @settings(FUZZ, max_examples=400)
    @given(case=cases)
    def run(case: Any) -> None:
        checker.call(case)

    run()
    wait_until(checker.jobs_idle, timeout=30)
    assert validate_config(checker.cdb.get_config(), partial=True).ok
    assert {200, 400} <= set(checker.statuses), checker.statuses


def test_fuzz_config_writes_on_real_rows(checker: Checker) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", checker.app)
    rows = sorted((table, key) for table, keyed in checker.cdb.get_config().items() for key in keyed)
    operations = [schema["/api/v1/config/{table}/{key}"][method] for method in ("PUT", "POST", "PATCH", "DELETE")]

    def on_row(row: tuple[str, str]) -> st.SearchStrategy[Any]:
        fixed = {"table": row[0], "key": row[1]}
        return st.one_of(*(op.as_strategy(path_parameters=fixed) for op in operations))

    @settings(FUZZ, max_examples=200)
    @given(case=st.sampled_from(rows).flatmap(on_row))
    def run(case: Any) -> None:
        checker.call(case)

    run()
    assert validate_config(checker.cdb.get_config(), partial=True).ok


def test_fuzz_field_patches_on_real_rows(checker: Checker) -> None:
    """JSON Patches that change real fields to tricky values: each is refused whole or leaves a valid config."""
    config = checker.cdb.get_config()
    fields = sorted({(t, k, f) for t, keyed in config.items() for k, row in keyed.items() for f in row})
    operation = st.fixed_dictionaries({
        "op": st.sampled_from(["replace", "add", "remove"]),
        "target": st.sampled_from(fields),
        "value": st.sampled_from(VALUES) | st.text(max_size=8),
    })
    schema = schemathesis.openapi.from_asgi("/openapi.json", checker.app)
    patch = schema["/api/v1/config"]["PATCH"]

    def as_patch(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for op in ops:
            table, key, field = op["target"]
            path = f"/{table}/{key.replace('~', '~0').replace('/', '~1')}/{field}"
            out.append({"op": op["op"], "path": path} | ({} if op["op"] == "remove" else {"value": op["value"]}))
        return out

    @settings(FUZZ, max_examples=200)
    @given(ops=st.lists(operation, min_size=1, max_size=4))
    def run(ops: list[dict[str, Any]]) -> None:
        checker.call(patch.Case(body=as_patch(ops), media_type="application/json-patch+json"))

    run()
    assert checker.statuses.get(200, 0) > 0 and checker.statuses.get(400, 0) > 0, checker.statuses
