"""Comparing the current view with the one a restarted client built (syncd_sim.view), on plain stores."""

from __future__ import annotations

from nos.sai.keys import asic_state_key, fdb_key
from nos.sai.types import ObjectType as T
from syncd_sim import view
from syncd_sim.behaviours import Inherited
from tests.unit.syncd_sim.compile.switchkit import SwitchKit


def build(kit: SwitchKit, hops: tuple[int, ...] = (0, 1), extra: bool = False) -> dict[str, str]:
    """A routed fabric on the kit: a RIF and a neighbor per port, a group over ``hops``, a route through it."""
    out = {}
    nhs = []
    for i, port in enumerate(kit.ports):
        rif = kit.rif_port(port)
        nhs.append(kit.neighbor(rif, f"10.0.{i}.1", f"52:54:00:00:00:0{i}"))
        out[f"rif{i}"], out[f"nh{i}"] = rif, nhs[-1]
    group, _ = kit.group(*(nhs[i] for i in hops))
    out["group"] = group
    kit.route("100.0.0.0/24", group)
    kit.route("100.0.1.0/24", nhs[2])
    if extra:
        kit.route("100.0.2.0/24", nhs[3])
    lag = kit.lag(2, 3)
    out["lag"], out["lag_bp"] = lag, kit.bridge_port(lag)
    return out


def rows_of(kit: SwitchKit) -> dict[str, dict[str, str]]:
    return {asic_state_key(o.object_type, o.object_id): dict(o.attrs) or {"NULL": "NULL"}
            for o in kit.store.objects.values()}


def temp_of(current: SwitchKit) -> SwitchKit:
    """A temporary view of ``current``: new ids (from 1000 on), the ASIC's own objects inherited."""
    return SwitchKit(n_ports=len(current.ports), first_index=1000,
                     inherited=Inherited.of(current.store, current.behaviour.defaults))


def test_the_same_objects_under_new_ids_are_matched_one_to_one():
    current = SwitchKit()
    old = build(current)
    temp = temp_of(current)
    new = build(temp)
    matched = view.compare(current.store, temp.store).matched
    assert len(matched) == len(current.store.objects) == len(temp.store.objects)
    for name in old:
        assert matched[old[name]] == new[name], name
    assert [matched[p] for p in current.ports] == temp.ports  # ports by their lanes
    queues = [o for o in current.store.of_type(T.QUEUE)]
    assert all(matched[q] == q for q in queues) and set(queues) == set(temp.store.of_type(T.QUEUE))
    assert matched[current.cpu] == temp.cpu == current.cpu  # built-in objects keep their ids


def test_a_group_is_told_apart_by_its_members():
    current = SwitchKit()
    old = build(current)
    other, _ = current.group(old["nh2"], old["nh3"])
    temp = temp_of(current)
    new = build(temp)
    new_other, _ = temp.group(new["nh2"], new["nh3"])
    matched = view.compare(current.store, temp.store).matched
    assert matched[old["group"]] == new["group"] and matched[other] == new_other


def test_what_changed_while_the_client_was_away_is_removed_or_created():
    current = SwitchKit()
    old = build(current, hops=(0, 1))
    temp = temp_of(current)
    new = build(temp, hops=(0, 2), extra=True)
    matched = view.compare(current.store, temp.store).matched
    assert old["group"] not in matched  # other members: another group
    changes = view.changes(current.store, temp.store)
    deleted = {c.key for c in changes if c.fields is None}
    written = {c.key: c.fields for c in changes if c.fields is not None}
    assert f"ASIC_STATE:SAI_OBJECT_TYPE_NEXT_HOP_GROUP:{old['group']}" in deleted
    assert f"ASIC_STATE:SAI_OBJECT_TYPE_NEXT_HOP_GROUP:{new['group']}" in written
    assert any('"dest":"100.0.2.0/24"' in key for key in written)
    # applying the changes to the current rows gives exactly the new view's rows
    rows = rows_of(current)
    for change in changes:
        if change.fields is None:
            rows.pop(change.key, None)
        else:
            rows.setdefault(change.key, {}).update(change.fields)
    assert rows == rows_of(temp)


def test_unchanged_rows_are_not_written_and_a_lost_attribute_rewrites_the_row():
    current = SwitchKit()
    build(current)
    temp = temp_of(current)
    build(temp)
    temp.set(T.PORT, temp.ports[0], "SAI_PORT_ATTR_MTU", "1522")
    written = [c for c in view.changes(current.store, temp.store) if c.key.endswith(temp.ports[0])]
    assert written[-1].fields is not None and written[-1].fields["SAI_PORT_ATTR_MTU"] == "1522"
    unchanged = view.changes(current.store, current.store)
    assert unchanged == []


def test_learnt_macs_move_to_the_new_view_when_their_vlan_and_bridge_port_survive():
    current = SwitchKit()
    old = build(current)
    vlan = current.vlan(10)
    bp = current.bridge_port(current.ports[0])
    current.fdb(vlan, "52:54:00:AA:00:01", current.ports[0])
    temp = temp_of(current)
    new = build(temp)
    new_vlan = temp.vlan(10)
    new_bp = temp.bridge_port(temp.ports[0])
    matched = view.compare(current.store, temp.store).matched
    assert matched[vlan] == new_vlan and matched[bp] == new_bp and matched[old["lag_bp"]] == new["lag_bp"]
    [learnt] = view.learnt_entries(current.store, temp.store, matched)
    assert learnt.object_id == fdb_key("52:54:00:AA:00:01", new_vlan, temp.switch)
    assert learnt.attrs["SAI_FDB_ENTRY_ATTR_BRIDGE_PORT_ID"] == new_bp


def test_translate_needs_every_id_matched():
    assert view.translate("2:oid:0x1,oid:0x2", {"oid:0x1": "oid:0xa", "oid:0x2": "oid:0xb"}) == "2:oid:0xa,oid:0xb"
    assert view.translate("oid:0x1", {}) is None
    assert view.translate("oid:0x0", {}) == "oid:0x0"
    assert view.translate("plain", {}) == "plain"
