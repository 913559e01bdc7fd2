"""The one JSON writer of the REST and gNMI answers: orjson, the standard library for what it refuses."""

from __future__ import annotations

import json

import pytest

from nos.api.json_bytes import json_bytes


@pytest.mark.parametrize("content", [
    {"Ethernet0": {"SAI_PORT_STAT_IF_IN_OCTETS": 2**64 - 1, "SAI_PORT_STAT_IF_IN_ERRORS": 0}},
    {"description": "uplink \u00e9\u4e2d", "list": [1, 2.5, None, True, False], "nested": {"a": []}},
    [{"key": "Vlan100|Ethernet0"}, "x", -(2**63)],
])
def test_the_same_document_as_the_standard_library_compact(content: object) -> None:
    written = json_bytes(content)
    assert json.loads(written) == content
    assert b" " not in written.replace(b"uplink ", b"")  # compact: no separator spaces


def test_non_string_keys_become_strings_as_json_makes_them() -> None:
    assert json.loads(json_bytes({0: "a", 7: "b"})) == {"0": "a", "7": "b"}


def test_an_integer_beyond_64_bits_is_still_a_number() -> None:
    assert json_bytes({"counter": 10**30}) == b'{"counter":' + str(10**30).encode() + b"}"


def test_what_no_encoder_writes_raises_type_error() -> None:
    with pytest.raises(TypeError):
        json_bytes({"x": object()})
