"""The MC-LAG configuration the issue names as invalid, refused with what is wrong: a peer link that
is also a member (either way round), two domains, keepalive x 3 > session timeout, a member that is
not a PortChannel."""

from __future__ import annotations

import copy

import pytest

from nos.config.validate import validate_config
from nos.config.validate_change import validate_change
from nos.schema.config import Config


def pair() -> Config:
    return {
        "PORT": {f"Ethernet{n}": {"lanes": str(n), "speed": "400000"} for n in (0, 4, 8)},
        "PORTCHANNEL": {"PortChannel1": {"admin_status": "up"}, "PortChannel99": {"admin_status": "up"}},
        "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}, "PortChannel99|Ethernet8": {}},
        "MCLAG_DOMAIN": {"1": {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.2", "peer_link": "PortChannel99",
                               "keepalive_interval": "1", "session_timeout": "30"}},
        "MCLAG_INTERFACE": {"1|PortChannel1": {"if_type": "PortChannel"}},
    }


def errors(config: Config) -> list[str]:
    return [str(e) for e in validate_config(config).errors]


def change_errors(after: Config, *rows: tuple[str, str]) -> list[str]:
    return [str(e) for e in validate_change(pair(), after, rows).errors]


def test_the_pair_is_valid():
    assert errors(pair()) == []


def test_a_peer_link_that_is_a_member_is_refused_either_way():
    member = pair()
    member["MCLAG_INTERFACE"]["1|PortChannel99"] = {"if_type": "PortChannel"}
    [why] = change_errors(member, ("MCLAG_INTERFACE", "1|PortChannel99"))
    assert why.startswith("MCLAG_INTERFACE|1|PortChannel99") and "peer_link" in why
    moved = pair()
    moved["MCLAG_DOMAIN"]["1"]["peer_link"] = "PortChannel1"
    [why] = change_errors(moved, ("MCLAG_DOMAIN", "1"))
    assert why.startswith("MCLAG_INTERFACE|1|PortChannel1") and "PortChannel1 is the peer_link" in why
    assert errors(member) and errors(moved)


@pytest.mark.parametrize("edit, expected", [
    (lambda c: c["MCLAG_DOMAIN"].update({"2": {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.3"}}), "MCLAG_DOMAIN"),
    (lambda c: c["MCLAG_DOMAIN"]["1"].update({"keepalive_interval": "11"}),
     "MCLAG_DOMAIN|1: field 'session_timeout' = '30': must be >= 3 x keepalive_interval (11 s)"),
    (lambda c: c["MCLAG_INTERFACE"].update({"1|Ethernet4": {"if_type": "PortChannel"}}),
     "MCLAG_INTERFACE|1|Ethernet4: key part 'if_name' = 'Ethernet4'"),
])
def test_invalid_pairs_are_refused_naming_what(edit, expected):
    config = copy.deepcopy(pair())
    edit(config)
    found = errors(config)
    assert any(expected in e for e in found), found
