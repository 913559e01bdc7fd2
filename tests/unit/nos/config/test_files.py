"""config_db.json reading (nested and flat layouts), writing, and the CONFIG_DB hash encoding."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from nos.config.errors import ConfigFileError
from nos.config.files import (
    dump_config,
    from_redis_fields,
    is_normal_row,
    parse_config,
    read_config_file,
    to_redis_fields,
    write_config_file,
)

NESTED = {
    "PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "400000", "mtu": 9100, "autoneg": False}},
    "VLAN": {"Vlan100": {"vlanid": "100", "dhcp_servers": ["10.0.0.1", "10.0.0.2"]}},
    "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
    "BUFFER_PG": {"Ethernet0|3-4": {"profile": "NULL"}},
}
FLAT = {
    "PORT|Ethernet0": {"lanes": "0,1,2,3", "speed": "400000", "mtu": "9100", "autoneg": "False"},
    "VLAN|Vlan100": {"vlanid": "100", "dhcp_servers@": "10.0.0.1,10.0.0.2"},
    "VLAN_MEMBER|Vlan100|Ethernet0": {"tagging_mode": "untagged"},
    "PORTCHANNEL_MEMBER|PortChannel1|Ethernet4": {"NULL": "NULL"},
    "BUFFER_PG|Ethernet0|3-4": {"profile": "NULL"},
}
EXPECTED = {
    "PORT": {"Ethernet0": {"lanes": "0,1,2,3", "speed": "400000", "mtu": "9100", "autoneg": "False"}},
    "VLAN": {"Vlan100": {"vlanid": "100", "dhcp_servers": ["10.0.0.1", "10.0.0.2"]}},
    "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}},
    "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet4": {}},
    "BUFFER_PG": {"Ethernet0|3-4": {"profile": "NULL"}},
}


def _write(tmp_path: Path, content: object, name: str = "config_db.json") -> Path:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def test_nested_and_flat_layouts_give_the_same_config(tmp_path: Path) -> None:
    nested = read_config_file(_write(tmp_path, NESTED, "nested.json"))
    flat = read_config_file(_write(tmp_path, FLAT, "flat.json"))
    assert nested == flat == EXPECTED


def test_layouts_may_be_mixed_per_entry() -> None:
    document = {"PORT": NESTED["PORT"], "VLAN|Vlan100": FLAT["VLAN|Vlan100"]}
    assert parse_config(document) == {"PORT": EXPECTED["PORT"], "VLAN": EXPECTED["VLAN"]}


def test_scalars_become_strings_as_sonic_cfggen_does() -> None:
    config = parse_config({"T": {"k": {"i": 7, "f": 1.5, "b": True, "l": [1, "x", False]}}})
    assert config == {"T": {"k": {"i": "7", "f": "1.5", "b": "True", "l": ["1", "x", "False"]}}}


def test_at_list_fields_in_nested_files_are_lists_too() -> None:
    config = parse_config({"VLAN": {"Vlan2": {"dhcp_servers@": "1.1.1.1", "x@": ""}}})
    assert config == {"VLAN": {"Vlan2": {"dhcp_servers": ["1.1.1.1"], "x": []}}}


def test_empty_tables_are_kept() -> None:
    assert parse_config({"QUEUE": {}, "PORT_QOS_MAP": {}}) == {"QUEUE": {}, "PORT_QOS_MAP": {}}


def test_redis_dump_entries_are_unwrapped() -> None:
    document = {
        "ACL_TABLE|DATAACL": {
            "expireat": 1602451533.2,
            "ttl": -0.001,
            "type": "hash",
            "value": {"policy_desc": "DATAACL", "ports@": "Ethernet0,Ethernet4"},
        }
    }
    assert parse_config(document) == {
        "ACL_TABLE": {"DATAACL": {"policy_desc": "DATAACL", "ports": ["Ethernet0", "Ethernet4"]}}
    }


def test_a_redis_dump_entry_that_is_not_a_hash_is_refused() -> None:
    with pytest.raises(ConfigFileError, match="redis-dump entry of type 'set'"):
        parse_config({"T|k": {"type": "set", "value": {"a": "b"}}}, "dump.json")


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ([1, 2], "dump.json: the top level must be a JSON object, not a list"),
        ({"PORT": "x"}, "dump.json: PORT: a table must be an object of rows, not a string"),
        (
            {"PORT": {"Ethernet0": "x"}},
            "dump.json: PORT|Ethernet0: a row must be an object of fields, not a string",
        ),
        (
            {"PORT|Ethernet0": ["x"]},
            "dump.json: PORT|Ethernet0: a row must be an object of fields, not a list",
        ),
        (
            {"PORT": {"Ethernet0": {"mtu": {"a": 1}}}},
            "dump.json: PORT|Ethernet0: field 'mtu': the value is an object; expected a string or a list of "
            "strings",
        ),
        (
            {"PORT": {"Ethernet0": {"mtu": None}}},
            "dump.json: PORT|Ethernet0: field 'mtu': the value is null; expected a string or a list of "
            "strings",
        ),
        (
            {"VLAN": {"Vlan2": {"dhcp_servers": [{"a": 1}]}}},
            "dump.json: VLAN|Vlan2: field 'dhcp_servers': a list item is an object; expected strings",
        ),
        (
            {"VLAN": {"Vlan2": {"x": "1", "x@": "1,2"}}},
            "dump.json: VLAN|Vlan2: field 'x': given both as 'x' and 'x@'",
        ),
        (
            {"PORT": {"Ethernet0": {}}, "PORT|Ethernet0": {}},
            "dump.json: PORT|Ethernet0: the row is given twice (nested and flat)",
        ),
    ],
)
def test_malformed_documents_are_refused_naming_the_place(document: object, expected: str) -> None:
    with pytest.raises(ConfigFileError) as caught:
        parse_config(document, "dump.json")
    assert str(caught.value) == expected


def test_a_bare_hash_in_a_flat_dump_is_reported_as_such() -> None:
    with pytest.raises(ConfigFileError, match="has no '\\|': a hash outside any table"):
        parse_config({"PORT|Ethernet0": {}, "CONFIG_DB_INITIALIZED": {"value": "1"}}, "dump.json")


def test_bad_json_is_refused_with_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n  "PORT": {\n    "Ethernet0": {"mtu": "9100",}\n  }\n}\n')
    with pytest.raises(ConfigFileError) as caught:
        read_config_file(path)
    assert str(caught.value).startswith(f"{path}: invalid JSON at line 3 column 33:")
    assert caught.value.path == str(path)


def test_a_missing_file_is_a_config_file_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="cannot read"):
        read_config_file(tmp_path / "absent.json")


def test_write_is_sorted_indented_and_ends_with_a_newline(tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    write_config_file(
        path,
        {"VLAN": {"Vlan2": {"vlanid": "2"}}, "PORT": {"Ethernet4": {}, "Ethernet0": {"b": "1", "a": "2"}}},
    )
    text = path.read_text(encoding="utf-8")
    assert text == (
        "{\n"
        '    "PORT": {\n'
        '        "Ethernet0": {\n'
        '            "a": "2",\n'
        '            "b": "1"\n'
        "        },\n"
        '        "Ethernet4": {}\n'
        "    },\n"
        '    "VLAN": {\n'
        '        "Vlan2": {\n'
        '            "vlanid": "2"\n'
        "        }\n"
        "    }\n"
        "}\n"
    )


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    write_config_file(path, EXPECTED)
    assert read_config_file(path) == EXPECTED
    assert path.read_text(encoding="utf-8") == dump_config(EXPECTED)


def test_write_replaces_atomically_and_keeps_the_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "config_db.json"
    path.write_text("{}", encoding="utf-8")
    os.chmod(path, 0o640)
    write_config_file(path, EXPECTED)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config_db.json"]  # no temporary file left


def test_write_into_a_missing_directory_is_a_config_file_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="cannot write"):
        write_config_file(tmp_path / "no" / "such" / "config_db.json", EXPECTED)


def test_redis_fields_encode_lists_with_at_and_empty_rows_as_null() -> None:
    assert to_redis_fields({}) == {"NULL": "NULL"}
    assert to_redis_fields({"vlanid": "2", "dhcp_servers": ["1.1.1.1", "2.2.2.2"]}) == {
        "vlanid": "2",
        "dhcp_servers@": "1.1.1.1,2.2.2.2",
    }
    assert from_redis_fields({"NULL": "NULL"}) == {}
    assert from_redis_fields({"vlanid": "2", "dhcp_servers@": "1.1.1.1,2.2.2.2"}) == {
        "vlanid": "2",
        "dhcp_servers": ["1.1.1.1", "2.2.2.2"],
    }


@pytest.mark.parametrize(
    "row",
    [
        {},
        {"a": "1"},
        {"l": ["x"]},
        {"l": ["x", "y"], "a": ""},
        {"l": []},
        {"members": ["Ethernet0"], "NULLX": "y"},
    ],
)
def test_redis_fields_round_trip(row: dict[str, str | list[str]]) -> None:
    assert from_redis_fields(to_redis_fields(row)) == row


@pytest.mark.parametrize(("row", "normal"), [
    ({"mtu": "9100", "members": ["Ethernet0", "Ethernet4"]}, True),
    ({}, True),
    ({"mtu": 9100}, False),
    ({"members@": "Ethernet0,Ethernet4"}, False),
    ({"NULL": "NULL"}, False),
    ({"members": ["Ethernet0", 4]}, False),
    ({"type": "hash", "value": {"mtu": "9100"}}, False),
    ("9100", False),
])
def test_a_row_is_normal_when_normalising_gives_it_back(row: object, normal: bool) -> None:
    assert is_normal_row(row) is normal
    if normal:
        assert parse_config({"PORT": {"Ethernet0": row}}) == {"PORT": {"Ethernet0": row}}


def test_table_names_are_kept_exactly_as_written():
    """``port`` is another table than ``PORT`` (case-exact, as Redis keys are), in both layouts."""
    config = parse_config({"PORT": {"Ethernet0": {"mtu": 9100}}, "port": {"Ethernet0": {"mtu": 1500}},
                           "Port|Ethernet4": {"mtu": "1500"}})
    assert config == {"PORT": {"Ethernet0": {"mtu": "9100"}}, "port": {"Ethernet0": {"mtu": "1500"}},
                      "Port": {"Ethernet4": {"mtu": "1500"}}}


@pytest.mark.parametrize("document", [{"": {"Ethernet0": {}}}, {"|Ethernet0": {"mtu": "1500"}}])
def test_an_empty_table_name_is_refused(document):
    with pytest.raises(ConfigFileError, match="a table name cannot be empty"):
        parse_config(document, "f.json")
