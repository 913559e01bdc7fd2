"""The LACP system id each switch port's PortChannel sends, as a bonded host (the simulated LACP
partner) sees it: one bond aggregates only the links whose partner says the same system id.

A PortChannel sends the switch's MAC (``DEVICE_METADATA|localhost`` ``mac``), or its own
``system_mac`` (teammgrd's; ``None`` = the switch's); an MC-LAG interface sends the pair's system MAC
in use (STATE_DB ``MCLAG_TABLE`` ``system_mac``: the active's on both while the session is up, each
its own while it is down), as iccpd sets the PortChannel's MAC that teamd's LACP runner sends as its
actor system. So while the session is up a dual-homed host sees one partner on both leaves; when the
standby turns active alone with its own MAC the host sees two, and its bond keeps one aggregator (the
one with its first link, as Linux bonding's ``ad_select=stable`` does when they are equal): its
traffic leaves by one leaf until the session is back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nos.db.connector import Databases
from nos.db.errors import DbError
from nos.db.table import Table
from nos.schema.dbconfig import CONFIG_DB, STATE_DB

Rows = Mapping[str, Mapping[str, str]]
CONFIG_TABLES = ("DEVICE_METADATA", "PORTCHANNEL", "PORTCHANNEL_MEMBER", "MCLAG_INTERFACE")


def system_ids(config: Mapping[str, Rows], mclag: Rows) -> dict[str, str]:
    """Port -> the system id its PortChannel sends (ports in no PortChannel are not listed)."""
    device = (config.get("DEVICE_METADATA", {}).get("localhost", {}).get("mac") or "").lower()
    mclag_lags = {key.partition("|")[2] for key in config.get("MCLAG_INTERFACE", {})}
    shared = next((row["system_mac"].lower() for row in mclag.values() if row.get("system_mac")), "")
    out = {}
    for key in config.get("PORTCHANNEL_MEMBER", {}):
        lag, _, port = key.partition("|")
        own = (config.get("PORTCHANNEL", {}).get(lag, {}).get("system_mac") or "None").lower()
        sent = device if own == "none" else own
        out[port] = shared if lag in mclag_lags and shared else sent
    return out


def read_system_ids(nodes: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """(switch, port) -> system id, read from each running switch's databases (a switch that does not
    answer is left out: its links count as agreeing)."""
    out: dict[tuple[str, str], str] = {}
    for name, info in nodes.items():
        url = (info.get("endpoints") or {}).get("redis")
        if not url:
            continue
        dbs = Databases(url)
        try:
            config = {t: Table(dbs[CONFIG_DB], t).get_all() for t in CONFIG_TABLES}
            mclag = Table(dbs[STATE_DB], "MCLAG_TABLE").get_all()
        except (DbError, OSError):
            continue
        finally:
            dbs.close()
        out.update({(name, port): sid for port, sid in system_ids(config, mclag).items()})
    return out


def paired(topo: Any, nodes: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The running switches of ``nodes`` that are in an MC-LAG pair (the only ones bonds span)."""
    peers = {n for pair in topo.mclag for n in pair.peers}
    return {n: info for n, info in nodes.items() if n in peers}


def one_aggregator(links: list[tuple[str, str]], ids: Mapping[tuple[str, str], str]) -> list[tuple[str, str]]:
    """The links of a bond that one aggregator takes: those whose partner sends the system id of the
    first link (a link whose id is not known goes with any)."""
    first = next((ids[link] for link in links if ids.get(link)), "")
    return [link for link in links if ids.get(link, "") in ("", first)]
