"""port_state_change data (sairedis sai_serialize_port_oper_status_ntf) parsed strictly."""

from __future__ import annotations

import pytest

from orchagent.orchs.port_fields import parse_port_states


def test_oper_states_of_a_batch() -> None:
    data = ('[{"port_id":"oid:0x1000000000002","port_state":"SAI_PORT_OPER_STATUS_UP"},'
            '{"port_id":"oid:0x1000000000003","port_state":"SAI_PORT_OPER_STATUS_DOWN"}]')
    assert parse_port_states(data) == [("oid:0x1000000000002", True), ("oid:0x1000000000003", False)]


@pytest.mark.parametrize("data", ["garbage", "{}", "[1,2]", '[{"port_id":5}]', '[{"port_id":"x","port_state":[1]}]',
                                  "[" * 100_000])
def test_anything_else_is_a_value_error(data: str) -> None:
    with pytest.raises(ValueError):
        parse_port_states(data)
