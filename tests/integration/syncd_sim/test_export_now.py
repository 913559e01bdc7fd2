"""An export asked for ``now`` is answered while the ASIC is still being programmed (a lab looking at a
data plane mid-change, nos.lab.across); a plain export waits until the store has settled; one ``since``
a version that is still current is answered ``unchanged`` without the tables."""

from __future__ import annotations

from nos.db import Databases, Table
from nos.schema.dbconfig import STATE_DB
from syncd_sim import traffic_requests as requests
from syncd_sim.fastpath_shell import NOS_TRAFFIC_JOB
from syncd_sim.syncd import Syncd


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
        shell._next_job()
        answered = jobs.get("now")
        assert answered["state"] == "done" and answered["export"], answered
        version = answered["version"]
        jobs.set("again", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0", "since": version})
        shell.queued = ["again"]
        shell._next_job()
        assert jobs.get("again") == {**jobs.get("again"), "state": "done", "unchanged": "1", "version": version}
        assert "export" not in jobs.get("again")            # nothing compiled, nothing sent
        shell.changed()
        jobs.set("later", {"kind": requests.KIND_EXPORT, "state": "queued", "progress": "0", "since": version,
                           "now": "1"})
        shell.queued = ["later"]
        shell._next_job()
        later = jobs.get("later")
        assert later["state"] == "done" and later["export"] and later["version"] != version, later
    finally:
        dbs.close()
