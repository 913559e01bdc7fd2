"""syncd_sim and a sairedis client that restart: answers carry their request's number in the client's
session, a batch is done whole or found again after a kill, a temporary view lost in a restart is said so."""

from __future__ import annotations

import pytest

from nos.db.queue_table import ConsumerTable, ProducerTable
from nos.sai.keys import object_key
from nos.sai.ops import SaiOp
from nos.sai.session import SESSION_ATTR, split_tag
from nos.sai.types import ObjectType as T
from orchagent.sairedis import SaiRedis, SaiTimeout, SessionLost
from syncd_sim.protocol import INIT_VIEW
from syncd_sim.syncd import INFLIGHT, Syncd

pytestmark = pytest.mark.integration

SWITCH = "oid:0x21000000000000"
CREATE_SWITCH = (object_key(T.SWITCH, SWITCH), "create", (("SAI_SWITCH_ATTR_INIT_SWITCH", "true"),))


def answers(dbs) -> list[tuple[str, str, int | None]]:
    """(status, session, number) of every queued answer, oldest first."""
    out = []
    for answer in ConsumerTable(dbs["ASIC_DB"], "GETRESPONSE", pop_batch_size=1000).pops():
        _, session, number = split_tag(answer.fvs)
        out.append((answer.key, session, number))
    return out


def test_answers_are_numbered_in_the_session_of_the_client_that_began_it(dbs):
    syncd = Syncd(dbs)
    requests = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE")
    requests.send([(object_key(T.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, "s1"),)), CREATE_SWITCH,
                   (object_key(T.PORT, "oid:0x1"), "remove", ())])
    syncd.on_ready()
    assert answers(dbs) == [("SAI_STATUS_SUCCESS", "s1", 0), ("SAI_STATUS_SUCCESS", "s1", 1),
                            ("SAI_STATUS_ITEM_NOT_FOUND", "s1", 2)]


def test_a_batch_popped_by_a_killed_syncd_is_done_by_its_successor_exactly_once(dbs, raw):
    Syncd(dbs).on_ready()  # nothing queued yet
    requests = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE")
    requests.send([(object_key(T.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, "s1"),)), CREATE_SWITCH])
    ConsumerTable(dbs["ASIC_DB"], "ASIC_STATE", inflight=INFLIGHT).pops()  # a syncd popped it, then was killed
    assert raw(1).llen(INFLIGHT) == 6 and not raw(1).keys("ASIC_STATE:*")
    successor = Syncd(dbs)
    assert answers(dbs) == [("SAI_STATUS_SUCCESS", "s1", 0), ("SAI_STATUS_SUCCESS", "s1", 1)]
    assert raw(1).llen(INFLIGHT) == 0 and raw(1).exists(f"ASIC_STATE:SAI_OBJECT_TYPE_SWITCH:{SWITCH}")
    assert successor.store.find(T.SWITCH, SWITCH) is not None
    Syncd(dbs)  # a third start finds nothing in flight: the switch is not created twice
    assert answers(dbs) == []


def test_a_restarted_syncd_goes_on_numbering_where_it_stopped(dbs):
    syncd = Syncd(dbs)
    requests = ProducerTable(dbs["ASIC_DB"], "ASIC_STATE")
    requests.send([(object_key(T.SWITCH, "oid:0x0"), "notify", ((SESSION_ATTR, "s1"),)), CREATE_SWITCH])
    syncd.on_ready()
    answers(dbs)
    successor = Syncd(dbs)
    requests.send([(object_key(T.PORT, "oid:0x1"), "remove", ())])
    successor.on_ready()
    assert answers(dbs) == [("SAI_STATUS_ITEM_NOT_FOUND", "s1", 2)]


def test_a_client_drops_the_answers_meant_for_its_predecessor(dbs, syncd_thread):
    dead = SaiRedis(dbs, timeout=5)
    dead.begin()
    # the predecessor's last requests: sent, answered after it died, never read
    dead.requests.send([(object_key(T.PORT, "oid:0x1"), "remove", ())] * 3)
    client = SaiRedis(dbs, timeout=5)
    result = client.apply([SaiOp.create(T.SWITCH, SWITCH, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true"))])
    assert result.ok  # not the predecessor's ITEM_NOT_FOUND
    assert client.discarded >= 3
    assert client.get(T.SWITCH, SWITCH, "SAI_SWITCH_ATTR_CPU_PORT")["SAI_SWITCH_ATTR_CPU_PORT"].startswith("oid:")


def test_a_temporary_view_lost_in_a_syncd_restart_is_fatal_for_its_client(dbs, syncd_thread):
    client = SaiRedis(dbs, timeout=5)
    client.apply([SaiOp.create(T.SWITCH, SWITCH, ("SAI_SWITCH_ATTR_INIT_SWITCH", "true"))])
    client.notify_syncd(INIT_VIEW)
    assert syncd_thread.syncd.temp is not None
    syncd_thread.restart()  # killed and started again: the temporary view is gone
    assert syncd_thread.syncd.lost
    with pytest.raises(SessionLost):
        client.get(T.SWITCH, SWITCH, "SAI_SWITCH_ATTR_CPU_PORT")
    with pytest.raises(SessionLost):  # and what such a client still asks for is not done
        client.apply([SaiOp.create(T.VLAN, "oid:0x26000000000999", ("SAI_VLAN_ATTR_VLAN_ID", "99"))])
    assert syncd_thread.syncd.store.find(T.VLAN, "oid:0x26000000000999") is None
    fresh = SaiRedis(dbs, timeout=5)  # the client's successor starts over, and is answered
    fresh.notify_syncd(INIT_VIEW)
    assert not syncd_thread.syncd.lost


def test_no_answer_within_the_timeout_is_fatal(dbs):
    client = SaiRedis(dbs, timeout=0.3)
    with pytest.raises(SaiTimeout):
        client.begin()  # nobody answers
