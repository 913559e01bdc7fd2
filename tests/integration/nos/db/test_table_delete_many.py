"""``Table.delete_many``: the rows named go with one DEL, the others stay."""

from __future__ import annotations

from nos.db import Table


def test_delete_many_removes_only_the_rows_named(dbs, raw):
    table = Table(dbs["STATE_DB"], "LAG_MEMBER_TABLE")
    for key in ("PortChannel1|Ethernet0", "PortChannel1|Ethernet4", "PortChannel2|Ethernet8"):
        table.set(key, {"runner.aggregator.selected": "true"})
    table.delete_many(["PortChannel1|Ethernet0", "PortChannel1|Ethernet4", "PortChannel9|Ethernet99"])
    assert table.keys() == ["PortChannel2|Ethernet8"]
    assert raw(6).exists("LAG_MEMBER_TABLE|PortChannel1|Ethernet0") == 0
    table.delete_many([])  # nothing named: nothing sent, nothing removed
    assert table.keys() == ["PortChannel2|Ethernet8"]
