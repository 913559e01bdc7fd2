"""``nos show ...``: SONiC's show commands, same words and columns, ``--json`` on each.

``interfaces status|portchannel|counters [errors|rates]``, ``vlan brief|config``, ``ip|ipv6 interfaces``,
``ip|ipv6 route``, ``queue counters|wredcounters|watermark|persistent-watermark``, ``pfc counters|priority``,
``priority-group watermark|persistent-watermark|drop counters``, ``mac``, ``runningconfiguration all``,
and ``errors`` (ours: entries that were refused).
Reading is in the command modules (``interfaces.read_snapshot``), formatting in ``render`` (pure).
"""

from __future__ import annotations

import click

from nos.cli.show import errors, interfaces, ip, mac, pfc, portstat, priority_group, queue, runningconfig, vlan


@click.group()
def show() -> None:
    """Show the state of the running switch."""


show.add_command(interfaces.interfaces)
show.add_command(vlan.vlan)
show.add_command(ip.ip)
show.add_command(ip.ipv6)
show.add_command(errors.errors)
show.add_command(queue.queue)
show.add_command(pfc.pfc)
show.add_command(priority_group.priority_group)
show.add_command(mac.mac)
show.add_command(runningconfig.runningconfiguration)
interfaces.interfaces.add_command(portstat.counters)
