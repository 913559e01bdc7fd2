"""nos.db.baddata with plain data: the reasons' text, and BadKeys' report-once-until-fixed rule."""

from __future__ import annotations

from nos.db.baddata import BadKey, BadKeys, shown, unreadable, wrong_type_reason
from nos.db.errors import DbError


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def bad_key(self, bad: BadKey) -> None:
        self.calls.append(("bad", bad.key, bad.reason))

    def bad_key_cleared(self, db: str, table: str, key: str) -> None:
        self.calls.append(("cleared", key))


def test_wrong_type_reason_names_db_key_type_and_expectation() -> None:
    assert wrong_type_reason("CONFIG_DB", "PORT|Ethernet24", "string") == \
        "WRONGTYPE: CONFIG_DB PORT|Ethernet24 is a string, expected a hash"
    assert wrong_type_reason("APPL_DB", "PORT_TABLE_KEY_SET", "zset", "set") == \
        "WRONGTYPE: APPL_DB PORT_TABLE_KEY_SET is a sorted set, expected a set"


def test_shown_bounds_and_escapes_what_it_quotes() -> None:
    assert shown("x" * 1000) == "x" * 200 + "... (1000 characters)"
    assert shown("a\x00b") == "a\\x00b"


def test_only_an_empty_read_of_a_replaced_key_is_unreadable() -> None:
    assert unreadable("\ufffd\ufffd", {}) and not unreadable("\ufffd", {"f": "v"}) and not unreadable("x", {})


def test_a_key_is_published_once_per_reason_and_cleared_once() -> None:
    recorder = Recorder()
    keys = BadKeys(recorder)
    bad = BadKey("CONFIG_DB", "PORT", "Ethernet24", "WRONGTYPE: string")
    keys.report(bad)
    keys.report(bad)
    keys.good("CONFIG_DB", "PORT", "Ethernet28")  # never reported: nothing to clear
    keys.report(BadKey("CONFIG_DB", "PORT", "Ethernet24", "WRONGTYPE: list"))
    keys.good("CONFIG_DB", "PORT", "Ethernet24")
    keys.good("CONFIG_DB", "PORT", "Ethernet24")
    assert recorder.calls == [("bad", "Ethernet24", "WRONGTYPE: string"), ("bad", "Ethernet24", "WRONGTYPE: list"),
                              ("cleared", "Ethernet24")]
    assert keys.count() == 0


def test_a_publisher_that_cannot_write_does_not_stop_the_reader() -> None:
    class Broken:
        def bad_key(self, bad: BadKey) -> None:
            raise DbError("STATE_DB is down")

        def bad_key_cleared(self, db: str, table: str, key: str) -> None:
            raise DbError("STATE_DB is down")

    keys = BadKeys(Broken())
    keys.report(BadKey("CONFIG_DB", "PORT", "Ethernet24", "x"))
    keys.good("CONFIG_DB", "PORT", "Ethernet24")
    assert keys.count() == 0
