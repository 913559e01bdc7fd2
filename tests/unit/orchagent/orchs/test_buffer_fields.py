"""bufferorch's field mapping on plain rows."""

from __future__ import annotations

import pytest

from orchagent.orchs.buffer_fields import (
    BadBufferField,
    parse_binding_key,
    parse_pool,
    parse_profile,
    parse_profile_list,
    ref_name,
)


def test_pool() -> None:
    entry = parse_pool("ingress_lossless_pool", {"type": "ingress", "mode": "dynamic", "size": "12766208",
                                                 "xoff": "100", "percentage": "90"})
    assert dict(entry.attrs) == {"SAI_BUFFER_POOL_ATTR_TYPE": "SAI_BUFFER_POOL_TYPE_INGRESS",
                                 "SAI_BUFFER_POOL_ATTR_THRESHOLD_MODE": "SAI_BUFFER_POOL_THRESHOLD_MODE_DYNAMIC",
                                 "SAI_BUFFER_POOL_ATTR_SIZE": "12766208", "SAI_BUFFER_POOL_ATTR_XOFF_SIZE": "100"}


@pytest.mark.parametrize(("fields", "message"), [
    ({"type": "sideways", "size": "1"}, "field type: 'sideways' is not one of ingress, egress, both"),
    ({"type": "ingress", "size": "12k"}, "field size: '12k' is not a byte count"),
    ({"size": "1"}, "field type: missing"),
])
def test_bad_pools(fields: dict[str, str], message: str) -> None:
    with pytest.raises(BadBufferField, match=message):
        parse_pool("p", fields)


def test_profiles() -> None:
    dynamic = parse_profile("x", {"pool": "ingress_lossless_pool", "size": "56368", "dynamic_th": "-3",
                                  "xon": "18432", "xoff": "55120", "xon_offset": "2496"})
    assert dynamic.pool == "ingress_lossless_pool"
    assert dict(dynamic.attrs) == {
        "SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE": "56368",
        "SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE": "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC",
        "SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH": "-3", "SAI_BUFFER_PROFILE_ATTR_XON_TH": "18432",
        "SAI_BUFFER_PROFILE_ATTR_XOFF_TH": "55120", "SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH": "2496"}
    static = parse_profile("y", {"pool": "[BUFFER_POOL|egress_lossless_pool]", "size": "0", "static_th": "9"})
    assert static.pool == "egress_lossless_pool"
    assert ("SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE", "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC") in static.attrs


@pytest.mark.parametrize(("fields", "message"), [
    ({"size": "1"}, "field pool: missing"),
    ({"pool": "p", "dynamic_th": "9"}, "field dynamic_th: 9 is outside -8..7"),
    ({"pool": "p", "dynamic_th": "1", "static_th": "1"}, "only one threshold"),
    ({"pool": "p", "colour": "red"}, "unknown field 'colour'"),
])
def test_bad_profiles(fields: dict[str, str], message: str) -> None:
    with pytest.raises(BadBufferField, match=message):
        parse_profile("x", fields)


def test_keys_and_references() -> None:
    key = parse_binding_key("Ethernet0,Ethernet4:3-4")
    assert (key.ports, key.indexes) == (("Ethernet0", "Ethernet4"), (3, 4))
    assert parse_binding_key("Ethernet0:7-7").indexes == (7,)
    for bad in ("Ethernet0", "Ethernet0:4-3", "Ethernet0:x"):
        with pytest.raises(BadBufferField):
            parse_binding_key(bad)
    assert ref_name("[BUFFER_PROFILE_TABLE:a]") == "a"
    assert parse_profile_list("a,[BUFFER_PROFILE|b]") == ["a", "b"]
