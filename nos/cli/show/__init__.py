"""``nos show ...``: SONiC's show commands, same words and columns, ``--json`` on each.

``interfaces status|portchannel|counters [errors|rates]``, ``vlan brief|config``, ``ip|ipv6 interfaces``,
``ip|ipv6 route``, ``queue counters|wredcounters|watermark|persistent-watermark``,
``pfc counters|priority|asymmetric``, ``pfcwd config|stats``,
``priority-group watermark|persistent-watermark|drop counters``, ``qos interface``, ``ecn``,
``buffer_pool|headroom-pool watermark|persistent-watermark``, ``buffer configuration``,
``mac``, ``mclag brief|interface``, ``runningconfiguration all``,
and ``errors`` (ours: entries that were refused).
Reading is in the command modules (``interfaces.read_snapshot``), formatting in ``render`` (pure).
"""

from __future__ import annotations

import click

from nos.cli.show import (
    buffer,
    ecn,
    errors,
    interfaces,
    ip,
    mac,
    mclag,
    pfc,
    pfcwd,
    portstat,
    priority_group,
    qos,
    queue,
    roce,
    runningconfig,
    vlan,
)


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
show.add_command(pfcwd.pfcwd)
show.add_command(priority_group.priority_group)
show.add_command(mac.mac)
show.add_command(mclag.mclag)
show.add_command(runningconfig.runningconfiguration)
show.add_command(roce.roce)
show.add_command(qos.qos)
show.add_command(ecn.ecn)
interfaces.interfaces.add_command(portstat.counters)
show.add_command(buffer.buffer)
show.add_command(buffer.buffer_pool)
show.add_command(buffer.headroom_pool)
