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
