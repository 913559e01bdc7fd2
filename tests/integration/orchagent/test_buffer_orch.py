"""BufferOrch with PortOrch and syncd_sim on real Redis: pools, profiles and their bindings in ASIC_STATE,
references that wait, and bad rows refused without raising (the runner is strict)."""

from __future__ import annotations

import pytest

from nos.db import ProducerStateTable
from orchagent.orchs.buffer import BufferOrch
from orchagent.orchs.port import PortOrch
from tests.integration.orchagent.conftest import boot_ports

pytestmark = pytest.mark.integration

PREFIX = "ASIC_STATE:SAI_OBJECT_TYPE_"


def objects(raw, kind):
    asic = raw(1)
    return {key.split(":", 2)[2]: asic.hgetall(key) for key in asic.keys(f"{PREFIX}{kind}:*")}


@pytest.fixture
def buf(orchagent, dbs):
    agent = orchagent(PortOrch, BufferOrch)
    ports = boot_ports(agent, dbs, 2)
    tables = {name: ProducerStateTable(dbs["APPL_DB"], f"BUFFER_{name}_TABLE") for name in ("POOL", "PROFILE", "PG")}
    return agent, ports, tables


def test_profile_waits_for_its_pool_then_binds_pgs(buf, raw):
    agent, ports, tables = buf
    tables["PROFILE"].set("lossless", {"pool": "ingress_lossless_pool", "size": "56368", "xon": "18432",
                                       "xoff": "55120", "xon_offset": "2496", "dynamic_th": "-3"})
    tables["PG"].set("Ethernet0:3-4", {"profile": "lossless"})
    agent.settle()
    assert objects(raw, "BUFFER_PROFILE") == {}  # waiting for the pool
    tables["POOL"].set("ingress_lossless_pool", {"type": "ingress", "mode": "dynamic", "size": "12766208"})
    agent.drive(lambda: objects(raw, "BUFFER_PROFILE"))
    [(pool, pool_attrs)] = objects(raw, "BUFFER_POOL").items()
    assert pool_attrs == {"SAI_BUFFER_POOL_ATTR_TYPE": "SAI_BUFFER_POOL_TYPE_INGRESS",
                          "SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE": "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC",
                          "SAI_BUFFER_POOL_ATTR_SIZE": "12766208"}
    [(profile, attrs)] = objects(raw, "BUFFER_PROFILE").items()
    assert attrs["SAI_BUFFER_PROFILE_ATTR_POOL_ID"] == pool
    assert attrs["SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE"] == "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"
    assert attrs["SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH"] == "-3"
    pg_names = raw(2).hgetall("COUNTERS_PG_NAME_MAP")
    agent.drive(lambda: objects(raw, "INGRESS_PRIORITY_GROUP")[pg_names["Ethernet0:4"]].get(
        "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE") == profile)
    assert raw(2).hget("COUNTERS_BUFFER_POOL_NAME_MAP", "ingress_lossless_pool") == pool
    assert raw(6).hget("BUFFER_MAX_PARAM_TABLE|global", "mmu_size") == "0"  # no SKU here: the ASIC reports 0 KB
    assert agent.deps.registry.in_use("Ethernet0") == 1

    tables["POOL"].delete("ingress_lossless_pool")
    tables["PROFILE"].delete("lossless")
    agent.settle()
    assert len(objects(raw, "BUFFER_POOL")) == 1  # still used: the pool and profile wait
    tables["PG"].delete("Ethernet0:3-4")
    agent.drive(lambda: not objects(raw, "BUFFER_POOL"))
    assert objects(raw, "INGRESS_PRIORITY_GROUP")[pg_names["Ethernet0:3"]][
        "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE"] == "oid:0x0"
    assert agent.deps.registry.in_use("Ethernet0") == 0


def test_bad_rows_are_refused(buf, raw):
    agent, _, tables = buf
    tables["POOL"].set("p1", {"type": "sideways", "mode": "dynamic", "size": "1"})
    tables["POOL"].set("p2", {"type": "ingress", "mode": "dynamic", "size": "12k"})
    tables["POOL"].set("p3", {"type": "ingress", "mode": "dynamic"})  # a new pool needs its size
    agent.settle()
    assert objects(raw, "BUFFER_POOL") == {}
    consumer = next(c for c in agent.runner.consumers if c.table == "BUFFER_POOL_TABLE")
    assert consumer.stats.rejected == 3 and not consumer.pending


def test_deleting_a_range_keeps_indexes_other_keys_bound_since(buf, raw):
    """SONiC's |3-4 split into |3 and |4-6 in one change: the delete of 3-4 may come last; it must not
    clear PGs 3 and 4, which the new keys hold."""
    agent, ports, tables = buf
    tables["POOL"].set("ingress_lossless_pool", {"type": "ingress", "mode": "dynamic", "size": "12766208"})
    tables["PROFILE"].set("lossless", {"pool": "ingress_lossless_pool", "size": "56368", "xon": "18432",
                                       "xoff": "55120", "dynamic_th": "-3"})
    tables["PG"].set("Ethernet0:3-4", {"profile": "lossless"})
    pg_names = raw(2).hgetall("COUNTERS_PG_NAME_MAP")

    def profile_of(index: int) -> str | None:
        attrs = objects(raw, "INGRESS_PRIORITY_GROUP")[pg_names[f"Ethernet0:{index}"]]
        return attrs.get("SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE")

    agent.drive(lambda: profile_of(4) not in (None, "oid:0x0"))
    profile = profile_of(3)
    tables["PG"].set("Ethernet0:3", {"profile": "lossless"})
    tables["PG"].set("Ethernet0:4-6", {"profile": "lossless"})
    agent.drive(lambda: profile_of(6) == profile)
    tables["PG"].delete("Ethernet0:3-4")
    orch = agent.orchs[BufferOrch]
    agent.drive(lambda: not any(key == "Ethernet0:3-4" for _, key in orch.bound))
    assert [profile_of(i) for i in (3, 4, 5, 6)] == [profile] * 4
    tables["PG"].delete("Ethernet0:3")
    agent.drive(lambda: profile_of(3) == "oid:0x0")
    assert profile_of(4) == profile


def test_a_pop_of_bindings_is_sent_in_two_round_trips(buf, raw):
    """Issue 17: the PGs of a pop are read (lists, lanes) in one round trip and bound in one more, not a
    round trip a key; a bad key in the same pop is refused alone and the others are bound."""
    agent, ports, tables = buf
    tables["POOL"].set("ingress_lossless_pool", {"type": "ingress", "mode": "dynamic", "size": "12766208"})
    tables["PROFILE"].set("lossless", {"pool": "ingress_lossless_pool", "size": "56368", "xon": "18432",
                                       "xoff": "55120", "dynamic_th": "-3"})
    orch = agent.orchs[BufferOrch]
    agent.drive(lambda: "lossless" in orch.profiles)
    sai = agent.deps.sai
    sends: list[int] = []
    real_send = sai._send
    sai._send = lambda ops: (sends.append(len(ops)), real_send(ops))[1]  # counts round trips, sends them
    keys = [f"{port}:{i}" for port in ("Ethernet0", "Ethernet4") for i in range(8)]
    for key in keys:
        tables["PG"].set(key, {"profile": "lossless"})
    tables["PG"].set("Ethernet0:9", {"profile": "lossless"})  # beyond the port's 8 PGs
    pg_names = raw(2).hgetall("COUNTERS_PG_NAME_MAP")
    profile = orch.profiles["lossless"].oid
    agent.drive(lambda: all(objects(raw, "INGRESS_PRIORITY_GROUP")[pg_names[k]].get(
        "SAI_INGRESS_PRIORITY_GROUP_ATTR_BUFFER_PROFILE") == profile for k in keys))
    agent.settle()
    assert sends == [2, 16]  # both ports' lists and lanes, then the 16 sets
    consumer = next(c for c in agent.runner.consumers if c.table == "BUFFER_PG_TABLE")
    assert consumer.stats.rejected == 1 and not consumer.pending
    assert agent.deps.registry.in_use("Ethernet0") == 8
