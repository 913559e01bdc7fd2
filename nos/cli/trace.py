"""``nos trace packet --in-port PORT [header fields]``: how the switch's programmed state forwards one
packet, every decision explained by syncd_sim (``fastpath.trace``, the same code as the
traffic model's forwarding). Header fields left out take the tracer's defaults.
Exit codes: 0 answered, 1 the switch is not running or did not answer, 2 a bad option.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import click

from nos.cli.common import connect, fail, json_option, print_json, print_table, run_dir_option
from nos.db.errors import DbError
from nos.traffic.client import trace_packet
from nos.traffic.errors import TrafficError

_MAC = re.compile(r"^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$")
PROTOCOLS = {"icmp": 1, "tcp": 6, "udp": 17, "icmpv6": 58}


def _mac(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not _MAC.match(value):
        raise click.BadParameter(f"{value!r} is not a MAC address (aa:bb:cc:dd:ee:ff)", param=param)
    return value.lower().replace("-", ":") if value else None


def _ip(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an IPv4 or IPv6 address", param=param) from None


def _proto(_ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    if value.lower() in PROTOCOLS:
        return PROTOCOLS[value.lower()]
    if value.isdigit() and int(value) <= 255:
        return int(value)
    raise click.BadParameter(f"{value!r}: a number 0-255 or one of {', '.join(PROTOCOLS)}", param=param)


def packet_of(options: dict[str, Any]) -> dict[str, Any]:
    """The request's header fields (``nos.traffic.client.trace_packet``) from the options given."""
    names = {"src_mac": "src_mac", "dst_mac": "dst_mac", "vlan": "vlan", "src_ip": "src_ip", "dst_ip": "dst_ip",
             "proto": "ip_proto", "sport": "l4_src", "dport": "l4_dst", "dscp": "dscp", "ttl": "ttl"}
    packet = {"in_port": options["in_port"]}
    packet.update({names[k]: v for k, v in options.items() if k in names and v is not None})
    src, dst = packet.get("src_ip"), packet.get("dst_ip")
    if src and dst and ipaddress.ip_address(src).version != ipaddress.ip_address(dst).version:
        raise click.UsageError("--src-ip and --dst-ip must both be IPv4 or both IPv6")
    return packet


def result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return str(result)
    return ", ".join(f"{key}={value}" for key, value in result.items() if value not in (None, [], {}, ""))


@click.group("trace")
def trace() -> None:
    """Explain how the switch forwards a packet."""


@trace.command("packet")
@click.option("--in-port", "in_port", required=True, help="Ingress port, e.g. Ethernet0.")
@click.option("--src-mac", callback=_mac)
@click.option("--dst-mac", callback=_mac)
@click.option("--vlan", type=click.IntRange(0, 4094), help="802.1Q VID (0: untagged).")
@click.option("--src-ip", callback=_ip)
@click.option("--dst-ip", callback=_ip)
@click.option("--dscp", type=click.IntRange(0, 63))
@click.option("--ttl", type=click.IntRange(0, 255))
@click.option("--proto", callback=_proto, help="IP protocol: number or tcp, udp, icmp, icmpv6.")
@click.option("--sport", type=click.IntRange(0, 65535), help="L4 source port.")
@click.option("--dport", type=click.IntRange(0, 65535), help="L4 destination port.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True)
@json_option
@run_dir_option
def packet_command(timeout_s: float, as_json: bool, run_dir: str | None, **options: Any) -> None:
    """Trace one packet through the switch: port, VLAN, FDB, routing, ECMP/LAG, QoS and the verdict."""
    packet = packet_of(options)
    _run, dbs = connect(run_dir)
    try:
        answer = trace_packet(dbs, packet, timeout_s=timeout_s)
    except TrafficError as exc:
        fail(f"trace: {exc}")
    except DbError as exc:
        fail(f"the switch's database: {exc}")
    if as_json:
        print_json(answer)
        return
    steps = answer.get("steps", [])
    print_table(["Stage", "Detail"], [[str(step.get("stage", "")), str(step.get("detail", ""))] for step in steps])
    click.echo(f"\nResult: {result_text(answer.get('result'))}")


__all__ = ["trace"]
