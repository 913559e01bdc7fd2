"""Parsing what the journal reads: config_apply.lua's message and read_typed.lua's reply."""

from __future__ import annotations

import base64

from nos.db.lua import lua
from nos.runtime.config_journal import KEYEVENTS, keyevent_channels, parse_apply_message, parse_typed
from nos.schema.tables import CONFIG_DB_GENERATION_KEY, CONFIG_DB_JOURNAL_CHANNEL


def test_apply_message_gives_whole_rows_and_the_generation():
    message = b'[12,"PORT|Ethernet0",["mtu","4000","lanes","0"],"VLAN|Vlan9",false,"X|y",{}]'
    assert parse_apply_message(message) == {
        CONFIG_DB_GENERATION_KEY: ("string", "12"),
        "PORT|Ethernet0": ("hash", {"mtu": "4000", "lanes": "0"}),
        "VLAN|Vlan9": None,
        "X|y": None,  # cjson writes an empty Lua table as {}: a row left without fields is gone
    }


def test_the_apply_script_publishes_on_the_journal_channel():
    assert f"'{CONFIG_DB_JOURNAL_CHANNEL}'" in lua("config_apply")


def test_typed_reply_keeps_hashes_strings_and_dumps():
    reply = [b"PORT|Ethernet0", b"hash", [b"mtu", b"9100"], b"GEN", b"string", b"3",
             b"L", b"list", b"\x0e\x01raw", b"gone", b"none", b"", b"BIN", b"string", b"\xff\xfe"]
    values, binary = parse_typed(reply)
    assert values == {"PORT|Ethernet0": ("hash", {"mtu": "9100"}), "GEN": ("string", "3"),
                      "L": ("dump", base64.b64encode(b"\x0e\x01raw").decode()), "gone": None}
    assert binary == ["BIN"]  # not text: read again as a DUMP


def test_keyevent_channels_are_exact_channels_of_one_db():
    channels = keyevent_channels(4)
    assert "__keyevent@4__:hset" in channels and "__keyevent@4__:del" in channels
    assert len(channels) == len(KEYEVENTS) and not any("*" in c for c in channels)
