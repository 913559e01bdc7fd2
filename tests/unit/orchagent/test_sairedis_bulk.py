"""The sairedis client's bulk requests on the wire (pure): SONiC's bulkset layout, and syncd_sim's decoding."""

from __future__ import annotations

from nos.sai.ops import OpKind
from nos.sai.types import ObjectType
from orchagent.sairedis import SaiRedis
from syncd_sim.protocol import decode, split_bulk_attrs


def test_a_bulk_set_is_one_request_with_one_attribute_per_entry():
    entries = [("oid:0x1000000000002", (("SAI_PORT_ATTR_MTU", "9122"),)),
               ("oid:0x1000000000003", (("SAI_PORT_ATTR_MTU", "9122"),)),
               ("oid:0x1000000000003", (("SAI_PORT_ATTR_FEC_MODE", "SAI_PORT_FEC_MODE_RS"),))]
    wire = SaiRedis._bulk_wire([(OpKind.SET, ObjectType.PORT, entries)])
    assert wire == [("SAI_OBJECT_TYPE_PORT:3", "bulkset", (
        ("oid:0x1000000000002", "SAI_PORT_ATTR_MTU=9122"),
        ("oid:0x1000000000003", "SAI_PORT_ATTR_MTU=9122"),
        ("oid:0x1000000000003", "SAI_PORT_ATTR_FEC_MODE=SAI_PORT_FEC_MODE_RS")))]
    key, op, fvs = wire[0]
    request = decode(key, op, fvs)
    assert (request.op, request.object_type, request.object_id) == ("bulkset", ObjectType.PORT, "3")
    assert [split_bulk_attrs(joined) for _, joined in request.fvs][2] == [
        ("SAI_PORT_ATTR_FEC_MODE", "SAI_PORT_FEC_MODE_RS")]


def test_an_empty_bulk_request_is_not_sent():
    assert SaiRedis._bulk_wire([(OpKind.SET, ObjectType.PORT, [])]) == []
