"""The counter writer on real Redis when the hashes it owns, or the maps it reads, are garbage: the
tick that meets one repairs it, and the next writes every counter again (instead of failing forever)."""

from __future__ import annotations

import time

import pytest

from nos.db.keyops import KeyOpFieldsValues
from nos.sai.types import ObjectType as T
from tests.integration.syncd_sim.test_counters_writer import IN_OCTETS, Q_PACKETS, asic, configure, writer  # noqa: F401

pytestmark = pytest.mark.integration


def test_a_counters_hash_turned_into_a_string_is_written_again(writer, asic, raw):  # noqa: F811
    port = asic.add_port()
    queue = asic.queue(port, 3)
    configure(writer, "PORT", FLEX_COUNTER_STATUS="enable")
    configure(writer, "QUEUE", FLEX_COUNTER_STATUS="enable")
    writer.clock = lambda: now
    now = time.monotonic()
    writer.tick()
    counters = raw(2)
    counters.set(f"COUNTERS:{port}", "garbage")
    counters.rpush(f"PERSISTENT_WATERMARKS:{queue}", "garbage")
    writer.stats.table(T.PORT).set(port, IN_OCTETS, 5)
    writer.stats.table(T.QUEUE).set(queue, Q_PACKETS, 3)

    for step in range(1, 4):  # the tick meeting the garbage repairs it; the next one writes all again
        now += 10.0 * step
        writer.tick()

    assert counters.hget(f"COUNTERS:{port}", IN_OCTETS) == "5"
    assert counters.hget(f"COUNTERS:{queue}", Q_PACKETS) == "3"
    assert counters.type(f"PERSISTENT_WATERMARKS:{queue}") in ("hash", "none")


class Reasons:
    def __init__(self) -> None:
        self.reasons: list[str] = []

    def rejected(self, db, table, task, result) -> None:
        self.reasons.append(result.reason)

    def cleared(self, db, table, key) -> None:
        pass


def test_a_name_map_that_is_not_a_hash_refuses_the_request_by_name(writer, asic, raw):  # noqa: F811
    asic.add_port()
    raw(2).set("COUNTERS_PORT_NAME_MAP", "garbage")
    writer.reporter = reasons = Reasons()

    writer._set_request(KeyOpFieldsValues("Ethernet0", "set", ((IN_OCTETS, "7"),)))  # the old code raised WRONGTYPE

    assert reasons.reasons == ["Ethernet0: COUNTERS_PORT_NAME_MAP is not a hash (garbage in COUNTERS_DB)"]
