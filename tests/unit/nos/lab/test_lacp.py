"""The LACP system id a bonded host's partners send (nos.lab.lacp), and what its bond then aggregates."""

from __future__ import annotations

from nos.lab.lacp import one_aggregator, system_ids

LEAF1, LEAF2 = "02:5a:00:00:01:00", "02:5a:00:00:02:00"


def _config(mac: str, lag_mac: str | None = None) -> dict[str, dict[str, dict[str, str]]]:
    return {"DEVICE_METADATA": {"localhost": {"mac": mac.upper()}},
            "PORTCHANNEL": {"PortChannel1": {}, "PortChannel999": {},
                            "PortChannel7": {"system_mac": lag_mac} if lag_mac else {"system_mac": "None"}},
            "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}, "PortChannel999|Ethernet496": {},
                                   "PortChannel7|Ethernet40": {}},
            "MCLAG_INTERFACE": {"1|PortChannel1": {"if_type": "PortChannel"}}}


def test_an_mclag_interface_sends_the_pairs_system_mac_in_use() -> None:
    up = {"1": {"oper_status": "up", "role": "standby", "system_mac": LEAF1}}     # the standby took the active's
    assert system_ids(_config(LEAF2), up) == {"Ethernet0": LEAF1, "Ethernet496": LEAF2, "Ethernet40": LEAF2}
    alone = {"1": {"oper_status": "down", "role": "active", "system_mac": LEAF2}}
    assert system_ids(_config(LEAF2), alone)["Ethernet0"] == LEAF2
    assert system_ids(_config(LEAF2), {})["Ethernet0"] == LEAF2                   # no iccpd: its own
    assert system_ids(_config(LEAF2, "02:00:00:00:00:77"), up)["Ethernet40"] == "02:00:00:00:00:77"


def test_a_bond_aggregates_the_links_whose_partner_sends_one_system_id() -> None:
    links = [("leaf1", "Ethernet0"), ("leaf2", "Ethernet0")]
    same = {links[0]: LEAF1, links[1]: LEAF1}
    assert one_aggregator(links, same) == links                                   # the session up: one LAG
    split = {links[0]: LEAF1, links[1]: LEAF2}
    assert one_aggregator(links, split) == [links[0]]                             # down: the first link's
    assert one_aggregator(links[::-1], split) == [links[1]]
    assert one_aggregator(links, {links[1]: LEAF2}) == links                      # one not known: goes along
    assert one_aggregator([], split) == []
