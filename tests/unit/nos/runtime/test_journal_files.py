"""The CONFIG_DB journal's file format: snapshot + lines replayed, torn lines, stale lines."""

from __future__ import annotations

import json

from nos.runtime.journal_files import JournalFiles, apply_changes, encode_batch, replay

PORT = ("hash", {"lanes": "0,1,2,3", "mtu": "9100"})


def test_replay_applies_lines_after_the_snapshot_in_order():
    snapshot = json.dumps({"seq": 2, "keys": {"PORT|Ethernet0": list(PORT), "GEN": ["string", "7"]}})
    journal = (encode_batch(1, {"PORT|Ethernet0": None})  # older than the snapshot: skipped
               + encode_batch(3, {"PORT|Ethernet4": PORT, "GEN": ("string", "8")})
               + encode_batch(4, {"PORT|Ethernet0": ("hash", {"mtu": "4000"}), "PORT|Ethernet4": None}))
    state, seq = replay(snapshot, journal)
    assert seq == 4
    assert state == {"PORT|Ethernet0": ("hash", {"mtu": "4000"}), "GEN": ("string", "8")}


def test_a_line_cut_short_ends_the_replay():
    journal = encode_batch(1, {"A": ("string", "1")}) + encode_batch(2, {"A": ("string", "2")})[:-9]
    assert replay(None, journal) == ({"A": ("string", "1")}, 1)


def test_no_files_is_an_empty_state():
    assert replay(None, None) == ({}, 0)


def test_apply_changes_deletes_and_sets():
    state = {"A": ("string", "1"), "B": ("string", "2")}
    apply_changes(state, {"A": None, "C": ("dump", "AAEC")})
    assert state == {"B": ("string", "2"), "C": ("dump", "AAEC")}


def test_files_round_trip_with_owner_only_modes(tmp_path):
    files = JournalFiles(tmp_path)
    files.write_snapshot({"PORT|Ethernet0": PORT}, 5)
    files.append(6, {"PORT|Ethernet0": ("hash", {"mtu": "1500"}), "X": ("string", "ü")})
    files.append(7, {"X": None})
    assert files.load() == ({"PORT|Ethernet0": ("hash", {"mtu": "1500"})}, 7)
    assert files.snapshot_path.stat().st_mode & 0o777 == 0o600
    assert files.journal_path.stat().st_mode & 0o777 == 0o600
    files.write_snapshot({"Y": ("string", "1")}, 8)  # a new snapshot empties the journal
    assert files.journal_path.read_text() == "" and files.load() == ({"Y": ("string", "1")}, 8)
    files.remove()
    assert not files.snapshot_path.exists() and not files.journal_path.exists()
