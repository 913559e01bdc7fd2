"""TypedValue in and out: JSON, JSON_IETF, pygnmi's raw strings, scalars."""

from __future__ import annotations

import pytest
from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.encoding import JSON, JSON_IETF, check_encoding, decode, encode
from nos.api.gnmi.errors import Unimplemented


@pytest.mark.parametrize(("value", "expected"), [
    (gnmi_pb2.TypedValue(json_ietf_val=b'{"mtu": "9100"}'), {"mtu": "9100"}),
    (gnmi_pb2.TypedValue(json_val=b"9100"), 9100),
    (gnmi_pb2.TypedValue(json_ietf_val=b"up"), "up"),  # pygnmi sends strings raw
    (gnmi_pb2.TypedValue(json_ietf_val=b'"up"'), "up"),
    (gnmi_pb2.TypedValue(string_val="down"), "down"),
    (gnmi_pb2.TypedValue(uint_val=7), 7),
    (gnmi_pb2.TypedValue(bool_val=True), True),
])
def test_values_are_decoded(value, expected):
    assert decode(value, "/x") == expected


def test_unsupported_values_and_encodings_are_unimplemented():
    with pytest.raises(Unimplemented, match="bytes_val"):
        decode(gnmi_pb2.TypedValue(bytes_val=b"\x00"), "/x")
    with pytest.raises(Unimplemented, match="PROTO"):
        check_encoding(gnmi_pb2.Encoding.Value("PROTO"))


def test_answers_use_the_requested_encoding_with_bare_leaves():
    assert encode("9100", JSON_IETF).json_ietf_val == b'"9100"'
    assert encode({"a": "b"}, JSON).json_val == b'{"a":"b"}'
