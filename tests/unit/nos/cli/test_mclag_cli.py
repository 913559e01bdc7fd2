"""``config mclag`` edits and ``show mclag`` rendering with plain data, in sonic-utilities' words."""

from __future__ import annotations

import pytest

from nos.cli.edits import mclag as edit
from nos.cli.edits.common import Refused
from nos.cli.show import mclag as show
from nos.cli.show.render import Snapshot
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB


def domain() -> dict:
    return {"MCLAG_DOMAIN": {"1": {"source_ip": "10.0.0.1", "peer_ip": "10.0.0.2", "peer_link": "PortChannel99"}}}


def test_add_writes_the_domain_and_refuses_a_second_one():
    config = edit.add({}, 1, "10.0.0.1", "10.0.0.2", "PortChannel99")
    assert config == domain()
    assert edit.add(config, 1, "10.0.0.1", "10.0.0.3", None)["MCLAG_DOMAIN"]["1"]["peer_ip"] == "10.0.0.3"
    with pytest.raises(Refused, match="only one mclag Domain can be configured. Already one domain 1"):
        edit.add(config, 2, "10.0.0.1", "10.0.0.2", None)


def test_del_takes_the_domain_and_its_interfaces():
    config = edit.add_members(domain(), "1", "PortChannel1,PortChannel2")
    assert set(config["MCLAG_INTERFACE"]) == {"1|PortChannel1", "1|PortChannel2"}
    config = edit.delete(config, 1)
    assert config == {"MCLAG_DOMAIN": {}, "MCLAG_INTERFACE": {}}
    with pytest.raises(Refused, match="MCLAG Domain 1 not configured"):
        edit.delete(config, 1)


@pytest.mark.parametrize("call, message", [
    (lambda c: edit.keepalive_interval(c, "1", 61), "Keepalive 61 not in valid range"),
    (lambda c: edit.keepalive_interval(c, "1", 6), "session_timeout >= (3 * KA)"),   # CLI default timeout 15
    (lambda c: edit.keepalive_interval(c, "1", 4), "should be a multiple of KA"),
    (lambda c: edit.session_timeout(c, "1", 2), "Session timeout 2 not in valid range"),
    (lambda c: edit.session_timeout(c, "2", 30), "MCLAG Domain 2 not configured"),
])
def test_timer_refusals(call, message):
    with pytest.raises(Refused, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        call(domain())


def test_timers_are_written():
    config = edit.session_timeout(edit.keepalive_interval(domain(), "1", 5), "1", 30)
    assert config["MCLAG_DOMAIN"]["1"] | {} == {**domain()["MCLAG_DOMAIN"]["1"], "keepalive_interval": "5",
                                               "session_timeout": "30"}


def test_unique_ip_needs_a_domain_and_an_address_free_vlan():
    with pytest.raises(Refused, match="MCLAG not configured"):
        edit.add_unique_ip({}, "Vlan10")
    config = domain() | {"VLAN_INTERFACE": {"Vlan20": {}, "Vlan20|10.1.0.1/24": {}}}
    assert edit.add_unique_ip(config, "Vlan10")["MCLAG_UNIQUE_IP"] == {"Vlan10": {"unique_ip": "enable"}}
    with pytest.raises(Refused, match="Vlan20 is configured with IP 10.1.0.1/24"):
        edit.add_unique_ip(config, "Vlan20")


def snapshot(state: dict | None = None) -> Snapshot:
    return Snapshot({
        (CONFIG_DB, "MCLAG_DOMAIN"): domain()["MCLAG_DOMAIN"],
        (CONFIG_DB, "MCLAG_INTERFACE"): {"1|PortChannel2": {"if_type": "PortChannel"},
                                         "1|PortChannel10": {"if_type": "PortChannel"}},
        (STATE_DB, "MCLAG_TABLE"): state or {},
        (STATE_DB, "MCLAG_REMOTE_INTF_TABLE"): {"1|PortChannel2": {"oper_status": "up"}},
        (STATE_DB, "MCLAG_LOCAL_INTF_TABLE"): {"PortChannel2": {"port_isolate_peer_link": "true"}},
        (APPL_DB, "LAG_TABLE"): {"PortChannel2": {"oper_status": "up"}, "PortChannel99": {"oper_status": "up"}},
    })


def test_brief_shows_the_session_and_every_interface():
    text = show.brief_text(show.brief(snapshot({"1": {"oper_status": "up", "role": "active",
                                                      "system_mac": "02:00:00:00:00:01"}})))
    lines = text.splitlines()
    assert lines[:4] == ["Domain ID            : 1", "Role                 : active",
                         "Session Status       : up", "Peer Link Status     : up"]
    assert "Keepalive Interval   : 1 secs" in lines and "Session Timeout      : 15 secs" in lines
    assert "System Mac           : 02:00:00:00:00:01" in lines and "Number of MLAG Interfaces:2" in lines
    assert lines[-2:] == ["PortChannel2             up/up", "PortChannel10            down/down"]


def test_brief_without_a_domain_and_before_the_session():
    assert show.brief_text(show.brief(Snapshot({}))) == "MCLAG Not Configured"
    [record] = show.brief(snapshot())
    assert record["session_status"] == "down" and record["role"] == ""


def test_interface_record():
    assert show.interface_text(show.interface_record(snapshot(), "1", "PortChannel2")).splitlines() == [
        "Local/Remote Status  : up/up", "IsolateWithPeerLink  : Yes", "TrafficDisable       : No"]
