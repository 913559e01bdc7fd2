"""The orchagent pending-merge rule as a table of cases (pure, no Redis)."""

from __future__ import annotations

import pytest

from nos.daemon.merge import merge_into, merge_task
from nos.db.keyops import KeyOpFieldsValues as K

S = K.set
D = K.delete

CASES = [
    ("new key SET", (), S("k", {"a": "1"}), (S("k", {"a": "1"}),)),
    ("new key DEL", (), D("k"), (D("k"),)),
    ("SET merges into SET, new wins, field moves to end",
     (S("k", [("a", "1"), ("b", "2")]),), S("k", [("a", "9"), ("c", "3")]),
     (K("k", "SET", (("b", "2"), ("a", "9"), ("c", "3"))),)),
    ("DEL supersedes SET", (S("k", {"a": "1"}),), D("k"), (D("k"),)),
    ("DEL supersedes DEL+SET", (D("k"), S("k", {"a": "1"})), D("k"), (D("k"),)),
    ("SET after DEL is kept after it", (D("k"),), S("k", {"a": "1"}), (D("k"), S("k", {"a": "1"}))),
    ("SET merges into the SET of DEL+SET", (D("k"), S("k", {"a": "1"})), S("k", {"b": "2"}),
     (D("k"), K("k", "SET", (("a", "1"), ("b", "2"))))),
]


@pytest.mark.parametrize(("pending", "incoming", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_merge_task(pending, incoming, expected):
    assert merge_task(pending, incoming) == expected


def test_unknown_op_is_refused():
    with pytest.raises(ValueError, match="unknown op"):
        merge_task((), K("k", "HSET", ()))


def test_merge_into_keeps_arrival_order_and_at_most_two_per_key():
    pending: dict = {}
    merge_into(pending, [S("b", {"x": "1"}), S("a", {"x": "1"}), D("b"), S("b", {"y": "2"}), S("b", {"z": "3"})])
    assert list(pending) == ["b", "a"]
    assert pending["b"] == (D("b"), K("b", "SET", (("y", "2"), ("z", "3"))))
    assert all(len(v) <= 2 for v in pending.values())
