"""An export asked for ``now`` is answered while the ASIC is still being programmed (a lab looking at a
data plane mid-change, nos.lab.across); a plain export waits until the store has settled; one ``since``
a version that is still current is answered ``unchanged`` without the tables."""

from __future__ import annotations

import time

from nos.db import Databases, Table
from nos.schema.dbconfig import STATE_DB
from syncd_sim import traffic_requests as requests
from syncd_sim.fastpath_shell import NOS_TRAFFIC_JOB
from syncd_sim.syncd import Syncd
from tests.conftest import wait_until


def _done(jobs: Table, job_id: str) -> dict[str, str] | None:
    row = jobs.get(job_id) or {}
    assert row.get("state") != "failed", row
    return row if row.get("state") == "done" else None


def test_an_export_now_does_not_wait_for_the_store_to_settle(redis_url: str) -> None:
    dbs = Databases(redis_url)
    try:
        shell = Syncd(dbs).fastpath
        jobs = Table(dbs[STATE_DB], NOS_TRAFFIC_JOB)
        jobs.set("plain", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0"})
        jobs.set("now", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0", "now": "1"})
        shell.changed()                        # orchagent is programming: the store is not settled
        shell.queued = ["plain"]
        shell._next_job()
        assert jobs.get("plain")["state"] == "queued"
        shell.queued = ["now"]
        before = time.time()
        shell._next_job()                      # forks the compile: syncd goes on meanwhile
        answered = wait_until(lambda: _done(jobs, "now"), timeout=30)
        assert answered["export"] and before <= float(answered["at"]) <= time.time(), answered
        version = answered["version"]
        jobs.set("again", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0", "since": version,
                           "now": "1"})
        shell.queued = ["again"]
        shell._next_job()
        assert jobs.get("again") == {**jobs.get("again"), "state": "done", "unchanged": "1", "version": version}
        assert "export" not in jobs.get("again")            # nothing compiled, nothing sent
        shell.changed()
        jobs.set("later", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0", "since": version,
                           "now": "1"})
        shell.queued = ["later"]
        shell._next_job()
        later = wait_until(lambda: _done(jobs, "later"), timeout=30)
        assert later["export"] and later["version"] != version, later
        wait_until(lambda: (shell._reap_exporters(), not shell.exporters)[1], timeout=10)   # no zombie left
    finally:
        dbs.close()
