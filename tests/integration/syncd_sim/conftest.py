"""syncd_sim running in a thread on the test Redis (the orch tests' harness)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.orchagent.conftest import SyncdThread


@pytest.fixture
def syncd_thread(redis_url: str) -> Iterator[SyncdThread]:
    thread = SyncdThread(redis_url)
    yield thread
    thread.close()
