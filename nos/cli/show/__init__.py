"""``nos show ...``: SONiC's show commands, same words and columns, ``--json`` on each.

``interfaces status|portchannel``, ``vlan brief|config``, ``ip|ipv6 interfaces``, ``ip|ipv6 route``,
and ``errors`` (ours: entries that were refused).
Reading is in the command modules (``interfaces.read_snapshot``), formatting in ``render`` (pure).
"""

from __future__ import annotations

import click

from nos.cli.show import errors, interfaces, ip, vlan


@click.group()
def show() -> None:
    """Show the state of the running switch."""


show.add_command(interfaces.interfaces)
show.add_command(vlan.vlan)
show.add_command(ip.ip)
show.add_command(ip.ipv6)
show.add_command(errors.errors)
