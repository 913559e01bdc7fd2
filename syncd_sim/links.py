"""A port's link as the simulated ASIC sees it (pure): its oper status, the carrier a lab gives its
ports, and which port a carrier row names.

Model (stated simplifications):

* A port is oper up exactly when it is admin up and its carrier is up (the far end has light). No
  link training, autoneg or debounce: a change of either changes the oper status at once.
* Carrier comes from STATE_DB ``NOS_LINK_TABLE|<port name>`` (``carrier`` up / down, ``peer``
  informational), which a lab writes for its cabled ports. A port without a row has carrier up: a
  switch on its own behaves as if every port had a live link partner.
* A row names the port as its netdev, i.e. the ``SAI_HOSTIF_ATTR_NAME`` of the NETDEV host interface
  whose ``SAI_HOSTIF_ATTR_OBJ_ID`` is the port. Orchagent creates that host interface only after the
  port, so from its creation until then a port is known by the name the SKU gives its first lane
  (``names_by_first_lane``: a cage's port, or a breakout child ``Ethernet<cage + lane offset>``, as
  SONiC names them); the host interface's name then wins. A port of a SKU-less switch, or on lanes
  the SKU does not list, has no name, hence carrier up, until its host interface exists. A row for a
  name no port has (yet) is kept, and applies to the port that later takes that name; a port keeps
  its name until it is removed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from nos.platform.breakout import PORT_PREFIX, port_number
from nos.schema.tables import CARRIER_DOWN, CARRIER_UP, NOS_LINK_CARRIER, NOS_LINK_TABLE
from syncd_sim.errors import BadLinkRow

UP = "SAI_PORT_OPER_STATUS_UP"
DOWN = "SAI_PORT_OPER_STATUS_DOWN"
NETDEV = "SAI_HOSTIF_TYPE_NETDEV"


def oper_status(admin_up: bool, carrier_up: bool) -> str:
    """The port's SAI oper status: up when admin up and the carrier is up."""
    return UP if admin_up and carrier_up else DOWN


def parse_carrier(name: str, fields: Mapping[str, str]) -> bool:
    """A ``NOS_LINK_TABLE`` row's carrier (True = up); raises BadLinkRow naming the row and the problem."""
    value = fields.get(NOS_LINK_CARRIER)
    if value is None:
        raise BadLinkRow(f"{NOS_LINK_TABLE}|{name} has no {NOS_LINK_CARRIER} field ({CARRIER_UP} or {CARRIER_DOWN})")
    if value not in (CARRIER_UP, CARRIER_DOWN):
        raise BadLinkRow(f"{NOS_LINK_TABLE}|{name}: {NOS_LINK_CARRIER} must be {CARRIER_UP} or {CARRIER_DOWN}, "
                         f"not {value[:40]!r}")
    return value == CARRIER_UP


def port_name(hostif_attrs: Mapping[str, str]) -> tuple[str, str] | None:
    """(port oid, netdev name) that a host interface gives its port; None for one that names none."""
    if hostif_attrs.get("SAI_HOSTIF_ATTR_TYPE") != NETDEV:
        return None
    port, name = hostif_attrs.get("SAI_HOSTIF_ATTR_OBJ_ID", ""), hostif_attrs.get("SAI_HOSTIF_ATTR_NAME", "")
    return (port, name) if port and name else None


def port_names(hostifs: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Port oid -> netdev name, from the host interfaces' attributes."""
    return dict(found for found in map(port_name, hostifs) if found is not None)


def names_by_first_lane(cages: Mapping[str, Sequence[int]]) -> dict[int, str]:
    """Lane -> the name of the port that starts on it, for the SKU's cages (name -> lanes): the port
    at lane offset k of cage ``EthernetN`` is ``Ethernet<N+k>`` in every breakout mode."""
    out = {}
    for cage, lanes in cages.items():
        try:
            base = port_number(cage)
        except ValueError:  # not an EthernetN cage: its ports are named by their host interfaces only
            continue
        for offset, lane in enumerate(lanes):
            out[lane] = f"{PORT_PREFIX}{base + offset}"
    return out


@dataclass
class Carriers:
    """The carrier rows by port name: names whose carrier is down (every other name is up). One
    instance is shared by the ASIC's view and a temporary one: carrier is the cable's, not a view's."""

    down: set[str] = field(default_factory=set)

    def up(self, name: str | None) -> bool:
        """The carrier of the port named ``name`` (None: a port without a name yet, up)."""
        return name is None or name not in self.down

    def update(self, name: str, up: bool) -> bool:
        """Record ``name``'s carrier (a deleted row is up); returns whether it changed."""
        if up == self.up(name):
            return False
        if up:
            self.down.discard(name)
        else:
            self.down.add(name)
        return True
