"""Request ids of the fast path's channels: garbage gives no id, never an exception."""

from __future__ import annotations

import pytest

from syncd_sim.traffic_requests import job_id_of


def test_a_bare_id_and_a_notification_carry_the_id() -> None:
    assert job_id_of(" job-1 ") == "job-1"
    assert job_id_of('["run","job-2"]') == "job-2"


@pytest.mark.parametrize("data", ["[", "[" * 100_000, "[1]"])
def test_garbage_gives_no_id(data: str) -> None:
    assert job_id_of(data) == ""


def test_an_import_is_checked_row_by_row_before_anything_is_applied() -> None:
    from syncd_sim.traffic_requests import JobError, parse_import

    ok = parse_import({"updates": '[["oid:0x1", "SAI_QUEUE_STAT_BYTES", 10, "add"], ["oid:0x2", "W", 3, "max"]]',
                       "watchdog": '[["oid:0x1", "storm"]]'})
    assert ok.updates[1] == ["oid:0x2", "W", 3, "max"] and ok.watchdog == [["oid:0x1", "storm"]]
    assert parse_import({}).updates == []
    for bad, where in [('[["oid:0x1", "S", -1, "add"]]', r"updates\[0\]"),
                       ('[["oid:0x1", "S", 1, "set"]]', r"updates\[0\]"),
                       ('[["oid:0x1", "S", true, "add"]]', r"updates\[0\]"),
                       ('{"a": 1}', "updates: not a JSON list"), ("[[", "updates: not JSON")]:
        with pytest.raises(JobError, match=where):
            parse_import({"updates": bad})
    with pytest.raises(JobError, match=r"watchdog\[0\]"):
        parse_import({"watchdog": '[["oid:0x1"]]'})
