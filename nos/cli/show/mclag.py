"""``nos show mclag brief|interface <domain> <PortChannel>``: the MC-LAG session as SONiC's management CLI
prints it (``Key : value`` lines; sonic-utilities has no such command, its image runs ``mclagdctl``).

Read from CONFIG_DB MCLAG_DOMAIN / MCLAG_INTERFACE (what is configured), STATE_DB MCLAG_TABLE (session
status, role, system MAC: the iccpd daemon's), APPL_DB LAG_TABLE / PORT_TABLE (local and peer link
status), STATE_DB MCLAG_REMOTE_INTF_TABLE (the peer's copy of each interface) and
MCLAG_LOCAL_INTF_TABLE (isolation with the peer link). Keepalive and session timeout show the CLI's
defaults (1 s, 15 s) when not set, as the management CLI does. ``--json`` prints the same as records.
"""

from __future__ import annotations

from typing import Any

import click

from nos.cli.common import json_option, print_json, run_dir_option
from nos.cli.show.interfaces import load_snapshot
from nos.cli.show.render import Snapshot, TableId, natsorted
from nos.schema import tables as tbl
from nos.schema.dbconfig import APPL_DB, CONFIG_DB, STATE_DB

TABLES: tuple[TableId, ...] = (
    (CONFIG_DB, tbl.CFG_MCLAG_TABLE_NAME), (CONFIG_DB, tbl.CFG_MCLAG_INTF_TABLE_NAME),
    (STATE_DB, tbl.STATE_MCLAG_TABLE_NAME), (STATE_DB, tbl.STATE_MCLAG_REMOTE_INTF_TABLE_NAME),
    (STATE_DB, tbl.STATE_MCLAG_LOCAL_INTF_TABLE_NAME), (APPL_DB, tbl.APP_LAG_TABLE_NAME),
    (APPL_DB, tbl.APP_PORT_TABLE_NAME),
)
NOT_CONFIGURED = "MCLAG Not Configured"
WIDTH = 21


def _status(value: str | None) -> str:
    return value.lower() if value else "down"


def _link_status(snap: Snapshot, name: str) -> str:
    table = tbl.APP_PORT_TABLE_NAME if name.startswith("Ethernet") else tbl.APP_LAG_TABLE_NAME
    return _status(snap.get(APPL_DB, table, name, "oper_status"))


def members(snap: Snapshot, domain: str) -> list[str]:
    return natsorted(k.partition("|")[2] for k in snap.rows(CONFIG_DB, tbl.CFG_MCLAG_INTF_TABLE_NAME)
                     if k.partition("|")[0] == domain)


def interface_record(snap: Snapshot, domain: str, name: str) -> dict[str, Any]:
    remote = snap.get(STATE_DB, tbl.STATE_MCLAG_REMOTE_INTF_TABLE_NAME, f"{domain}|{name}", "oper_status")
    isolated = snap.get(STATE_DB, tbl.STATE_MCLAG_LOCAL_INTF_TABLE_NAME, name, "port_isolate_peer_link")
    traffic = snap.get(APPL_DB, tbl.APP_LAG_TABLE_NAME, name, "traffic_disable")
    return {"interface": name, "local_status": _link_status(snap, name), "remote_status": _status(remote),
            "isolate_with_peer_link": isolated == "true", "traffic_disable": traffic == "true"}


def brief(snap: Snapshot) -> list[dict[str, Any]]:
    """One record per configured domain (SONiC allows one)."""
    out = []
    for domain, row in sorted(snap.rows(CONFIG_DB, tbl.CFG_MCLAG_TABLE_NAME).items()):
        def state(name: str, domain: str = domain) -> str:
            return snap.get(STATE_DB, tbl.STATE_MCLAG_TABLE_NAME, domain, name) or ""
        peer_link = str(row.get("peer_link") or "")
        out.append({"domain_id": domain, "role": state("role"), "session_status": _status(state("oper_status")),
                    "peer_link_status": _link_status(snap, peer_link) if peer_link else "",
                    "source_address": row.get("source_ip", ""), "peer_address": row.get("peer_ip", ""),
                    "peer_link": peer_link, "keepalive_interval": int(str(row.get("keepalive_interval") or 1)),
                    "session_timeout": int(str(row.get("session_timeout") or 15)),
                    "system_mac": state("system_mac"), "peer_mac": state("peer_mac"),
                    "interfaces": [interface_record(snap, domain, n) for n in members(snap, domain)]})
    return out


def _line(key: str, value: object) -> str:
    return f"{key:<{WIDTH}}: {value}"


def brief_text(records: list[dict[str, Any]]) -> str:
    if not records:
        return NOT_CONFIGURED
    blocks = []
    rule = "-" * 59
    for r in records:
        lines = [_line("Domain ID", r["domain_id"]), _line("Role", r["role"]),
                 _line("Session Status", r["session_status"]), _line("Peer Link Status", r["peer_link_status"]),
                 _line("Source Address", r["source_address"]), _line("Peer Address", r["peer_address"]),
                 _line("Peer Link", r["peer_link"]), _line("Keepalive Interval", f"{r['keepalive_interval']} secs"),
                 _line("Session Timeout", f"{r['session_timeout']} secs"), _line("System Mac", r["system_mac"]),
                 "", "", f"Number of MLAG Interfaces:{len(r['interfaces'])}", rule,
                 f"{'MLAG Interface':<21}Local/Remote Status", rule]
        lines += [f"{i['interface']:<25}{i['local_status']}/{i['remote_status']}" for i in r["interfaces"]]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def interface_text(record: dict[str, Any]) -> str:
    return "\n".join((_line("Local/Remote Status", f"{record['local_status']}/{record['remote_status']}"),
                      _line("IsolateWithPeerLink", "Yes" if record["isolate_with_peer_link"] else "No"),
                      _line("TrafficDisable", "Yes" if record["traffic_disable"] else "No")))


@click.group()
def mclag() -> None:
    """Show MCLAG information."""


@mclag.command("brief")
@json_option
@run_dir_option
def brief_cmd(as_json: bool, run_dir: str | None) -> None:
    """Show the MCLAG domain: session, role, system MAC, peer link and interfaces."""
    records = brief(load_snapshot(run_dir, TABLES))
    if as_json:
        print_json(records)
    else:
        click.echo(brief_text(records))


@mclag.command("interface")
@click.argument("domain_id", metavar="<domain_id>")
@click.argument("portchannel_name", metavar="<portchannel_name>")
@json_option
@run_dir_option
def interface_cmd(domain_id: str, portchannel_name: str, as_json: bool, run_dir: str | None) -> None:
    """Show one MCLAG interface: local/remote status, isolation with the peer link, traffic disable."""
    snap = load_snapshot(run_dir, TABLES)
    if domain_id not in snap.rows(CONFIG_DB, tbl.CFG_MCLAG_TABLE_NAME):
        raise click.ClickException(f"Domain {domain_id} is not configured.")
    if portchannel_name not in members(snap, domain_id):
        raise click.ClickException(f"Domain {domain_id} member {portchannel_name} is not configured.")
    record = interface_record(snap, domain_id, portchannel_name)
    if as_json:
        print_json(record)
    else:
        click.echo(interface_text(record))
