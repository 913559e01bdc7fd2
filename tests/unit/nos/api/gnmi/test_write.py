"""SetRequest -> one edit of the config_db.json document (pure)."""

from __future__ import annotations

import copy
import json

import pytest
from pygnmi.create_gnmi_path import gnmi_path_generator
from pygnmi.spec.v080 import gnmi_pb2

from nos.api.gnmi.write import SetFailed, apply_ops, blame, plan
from nos.config.errors import ConfigError

DBS = ("APPL_DB", "CONFIG_DB", "STATE_DB")
DOC = {"PORT": {"Ethernet0": {"mtu": "9100", "admin_status": "up", "lanes": "0,1,2,3"},
                "Ethernet4": {"mtu": "9100", "lanes": "4,5,6,7"}},
       "VLAN": {"Vlan100": {"vlanid": "100"}},
       "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}}}


def update(p: str, value: object) -> gnmi_pb2.Update:
    raw = value.encode() if isinstance(value, str) else json.dumps(value).encode()
    return gnmi_pb2.Update(path=gnmi_path_generator(p), val=gnmi_pb2.TypedValue(json_ietf_val=raw))


def request(delete=(), replace=(), updates=()) -> gnmi_pb2.SetRequest:
    return gnmi_pb2.SetRequest(delete=[gnmi_path_generator(p) for p in delete],
                               replace=[update(p, v) for p, v in replace], update=[update(p, v) for p, v in updates])


def edit(req: gnmi_pb2.SetRequest) -> dict:
    return apply_ops(copy.deepcopy(DOC), plan(req, DBS))


N = "sonic-db:/CONFIG_DB/localhost"


def test_update_merges_fields_and_creates_rows_and_tables():
    doc = edit(request(updates=[(f"{N}/PORT/Ethernet0/mtu", "9000"),
                                (f"{N}/VLAN/Vlan200", {"vlanid": 200}),
                                (f"{N}/VLAN_MEMBER/Vlan200/Ethernet4", {"tagging_mode": "tagged"}),
                                (f"{N}/LOOPBACK_INTERFACE", {"Loopback0": {}})]))
    assert doc["PORT"]["Ethernet0"] == {"mtu": "9000", "admin_status": "up", "lanes": "0,1,2,3"}
    assert doc["VLAN"]["Vlan200"] == {"vlanid": "200"}  # numbers become strings, as in config_db.json
    assert doc["VLAN_MEMBER"]["Vlan200|Ethernet4"] == {"tagging_mode": "tagged"}
    assert doc["LOOPBACK_INTERFACE"] == {"Loopback0": {}}


def test_replace_replaces_a_row_or_a_whole_table():
    doc = edit(request(replace=[(f"{N}/PORT/Ethernet4", {"lanes": "4,5,6,7", "mtu": 1500}),
                                (f"{N}/VLAN", {"Vlan300": {"vlanid": "300"}})]))
    assert doc["PORT"]["Ethernet4"] == {"lanes": "4,5,6,7", "mtu": "1500"}
    assert doc["VLAN"] == {"Vlan300": {"vlanid": "300"}}


def test_delete_then_replace_then_update_in_that_order():
    doc = edit(request(delete=[f"{N}/PORT/Ethernet0/admin_status", f"{N}/VLAN_MEMBER/Vlan100|Ethernet0",
                               f"{N}/NO_TABLE/x", f"{N}/PORT/Ethernet99"],
                       updates=[(f"{N}/PORT/Ethernet0/admin_status", "down")]))
    assert doc["PORT"]["Ethernet0"]["admin_status"] == "down"
    assert "VLAN_MEMBER" not in doc or doc["VLAN_MEMBER"] == {}


def test_delete_of_a_glob_removes_every_matching_row():
    doc = edit(request(delete=[f"{N}/PORT/Ethernet*"]))
    assert doc["PORT"] == {}


def test_delete_of_two_elements_is_a_row_when_it_exists_else_a_field():
    assert "Vlan100|Ethernet0" not in edit(request(delete=[f"{N}/VLAN_MEMBER/Vlan100/Ethernet0"]))["VLAN_MEMBER"]
    assert "mtu" not in edit(request(delete=[f"{N}/PORT/Ethernet4/mtu"]))["PORT"]["Ethernet4"]


@pytest.mark.parametrize(("req", "text"), [
    (request(updates=[("/APPL_DB/localhost/PORT_TABLE/Ethernet0/mtu", "1")]), "UNIMPLEMENTED: APPL_DB is written"),
    (request(updates=[(f"{N}/PORT/Ethernet0", "9000")]), "object of fields"),
    (request(replace=[(f"{N}/PORT/Ethernet0", {})]), "would empty it"),
    (request(updates=[(f"{N}/PORT/Ethernet0", {"mtu": None})]), "null"),
    (request(updates=[(f"{N}/PORT/Ethernet0/mtu", {"x": {"y": 1}})]), "INVALID_ARGUMENT"),
    (request(updates=[(f"{N}/PORT", ["a"])]), "object of rows"),
])
def test_bad_operations_are_refused_naming_op_and_path(req, text):
    with pytest.raises(SetFailed) as failed:
        plan(req, DBS)
    assert failed.value.code == "ABORTED" and text in str(failed.value) and "nothing applied" in str(failed.value)


def test_target_paths_are_read_only():
    req = request(updates=[("PORT/Ethernet0/mtu", "9000")])
    req.prefix.target = "CONFIG_DB"
    with pytest.raises(SetFailed, match="read-only"):
        plan(req, DBS)


def test_validation_errors_are_blamed_on_the_operation_that_wrote_the_row():
    ops = plan(request(updates=[(f"{N}/VLAN/Vlan200", {"vlanid": "200"}), (f"{N}/PORT/Ethernet0/mtu", "abc")]), DBS)
    message = blame([ConfigError("PORT", "Ethernet0", "mtu", "abc", "must be an integer")], ops)
    assert message.startswith("update sonic-db:/CONFIG_DB/localhost/PORT/Ethernet0/mtu: INVALID_ARGUMENT")
