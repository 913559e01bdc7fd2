"""What portsorch writes besides SAI attributes, as pure functions: the host interface a port gets,
the fields of APPL_DB / STATE_DB ``PORT_TABLE`` that follow configuration and oper state, and the
reading of ``port_host_tx_ready``.

Sources (sonic-swss ``orchagent/portsorch.cpp``):

* ``addHostIntfs``: type NETDEV, the port, its name, tx queue 7 (``DEFAULT_HOSTIF_TX_QUEUE``: the
  ASIC offers ``SAI_HOSTIF_ATTR_QUEUE``), and the oper status APPL_DB already holds (down when absent;
  ``initializePorts`` then writes ``oper_status`` down);
* ``addPortBulk``: a port is created with ``SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE`` false where the ASIC
  syncs with CMIS modules (the virtual switch does); STATE_DB ``TRANSCEIVER_INFO`` appearing or going
  sets it true / false (``doTransceiverInfoTableTask``);
* ``initHostTxReadyState``: STATE_DB ``host_tx_ready`` starts ``false``; in CMIS mode only
  ``port_host_tx_ready`` notifications change it (admin status does not);
* ``updatePortOperStatus`` / ``updateDbPortFlapCount``: on a real change only, APPL_DB ``oper_status``,
  ``flap_count`` and ``last_up_time`` / ``last_down_time``; when up, STATE_DB oper ``speed`` and ``fec``;
* ``doPortTask``: ``rmt_adv_speeds`` is dropped when autoneg is (re)configured and refreshed while
  autoneg is on and the port admin up (``refreshPortStateAutoNeg``: ``N/A`` when the ASIC cannot tell
  the partner's speeds, as here); ``link_training_status`` follows link_training; ``phy_ctrl_unreliable_los``
  follows unreliable_los.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

HOSTIF_TX_QUEUE = "7"  # portsorch DEFAULT_HOSTIF_TX_QUEUE
HOST_TX_SIGNAL = "SAI_PORT_ATTR_HOST_TX_SIGNAL_ENABLE"
PORT_HOST_TX_READY = "port_host_tx_ready"  # the ASIC_DB NOTIFICATIONS op
TX_READY = "SAI_PORT_HOST_TX_READY_STATUS_READY"
NOT_AVAILABLE = "N/A"
TIME_FORMAT = "%a %b %d %H:%M:%S %Y"  # updateDbPortFlapCount, in UTC

AUTONEG = "SAI_PORT_ATTR_AUTO_NEG_MODE"
ADMIN = "SAI_PORT_ATTR_ADMIN_STATE"
LINK_TRAINING = "SAI_PORT_ATTR_LINK_TRAINING_ENABLE"
UNRELIABLE_LOS = "SAI_PORT_ATTR_UNRELIABLE_LOS"
SPEED = "SAI_PORT_ATTR_SPEED"
FEC = "SAI_PORT_ATTR_FEC_MODE"
FEC_NAMES = {"SAI_PORT_FEC_MODE_NONE": "none", "SAI_PORT_FEC_MODE_RS": "rs", "SAI_PORT_FEC_MODE_FC": "fc"}

# doPortTask's order of fields: a refused field drops the task there, so what comes after is not applied
TASK_ORDER = ("SAI_PORT_ATTR_AUTO_NEG_MODE", "SAI_PORT_ATTR_LINK_TRAINING_ENABLE", "SAI_PORT_ATTR_SPEED",
              "SAI_PORT_ATTR_ADVERTISED_SPEED", "SAI_PORT_ATTR_INTERFACE_TYPE", "SAI_PORT_ATTR_UNRELIABLE_LOS",
              "SAI_PORT_ATTR_ADVERTISED_INTERFACE_TYPE", "SAI_PORT_ATTR_MTU", "SAI_PORT_ATTR_TPID",
              "SAI_PORT_ATTR_FEC_MODE", "SAI_PORT_ATTR_PRIORITY_FLOW_CONTROL_MODE", "SAI_PORT_ATTR_MEDIA_TYPE",
              "SAI_PORT_ATTR_ADMIN_STATE", "SAI_PORT_ATTR_PATH_TRACING_INTF",
              "SAI_PORT_ATTR_PATH_TRACING_TIMESTAMP_TYPE")

Attrs = list[tuple[str, str]]


def hostif_attrs(port_oid: str, name: str, up: bool) -> tuple[tuple[str, str], ...]:
    """The NETDEV host interface of a port (addHostIntfs), in SONiC's attribute order."""
    return (("SAI_HOSTIF_ATTR_TYPE", "SAI_HOSTIF_TYPE_NETDEV"), ("SAI_HOSTIF_ATTR_OBJ_ID", port_oid),
            ("SAI_HOSTIF_ATTR_NAME", name), ("SAI_HOSTIF_ATTR_QUEUE", HOSTIF_TX_QUEUE),
            ("SAI_HOSTIF_ATTR_OPER_STATUS", "true" if up else "false"))


def cut_before(attrs: Attrs, stop: str) -> Attrs:
    """The attributes doPortTask applies before it reaches ``stop`` (serdes come after the FEC)."""
    limit = TASK_ORDER.index(stop)
    return [(a, v) for a, v in attrs if a in TASK_ORDER and TASK_ORDER.index(a) < limit]


def speed_refused(attrs: Attrs, old: Mapping[str, str], supported: list[str]) -> tuple[Attrs, str]:
    """A speed change the port does not support (isSpeedSupported: only when the ASIC listed its speeds)
    ends the task there: returns the attributes applied before it (autoneg, link training) and the reason;
    ``(attrs, "")`` when the speed is fine."""
    speed = dict(attrs).get(SPEED)
    if speed is None or speed == old.get(SPEED) or not supported or speed in supported:
        return attrs, ""
    return cut_before(attrs, SPEED), f"speed {speed} is not supported (supported: {','.join(supported)})"


def fec_auto_refused(fields: Mapping[str, str], attrs: Attrs) -> tuple[Attrs, str]:
    """``fec auto`` on an existing port needs the FEC-override attribute, which this ASIC (like the virtual
    switch) does not offer: doPortTask drops the task at the FEC ("Auto FEC mode is not supported"). At
    creation ``auto`` is FEC mode NONE (addPortBulk), so only updates are refused."""
    if fields.get("fec") != "auto":
        return attrs, ""
    return cut_before(attrs, FEC), "fec auto is not supported (no FEC override on this ASIC)"


def refused(fields: Mapping[str, str], attrs: Attrs, old: Mapping[str, str], supported: list[str]) -> tuple[Attrs, str]:
    """The first refusal of an update in doPortTask's order (speed before FEC), as (applied, reason)."""
    kept, reason = speed_refused(attrs, old, supported)
    return (kept, reason) if reason else fec_auto_refused(fields, attrs)


def flap_fields(flaps: int, up: bool, now: float | None = None) -> dict[str, str]:
    """APPL_DB PORT_TABLE fields for an oper change that made ``flaps`` flaps in all."""
    stamp = time.strftime(TIME_FORMAT, time.gmtime(time.time() if now is None else now))
    return {"oper_status": "up" if up else "down", "flap_count": str(flaps),
            ("last_up_time" if up else "last_down_time"): stamp}


def oper_up_state(attrs: Mapping[str, str]) -> dict[str, str]:
    """STATE_DB PORT_TABLE fields when the port comes up: oper speed and oper FEC (the FEC it runs)."""
    return {"speed": attrs.get(SPEED, NOT_AVAILABLE),
            "fec": FEC_NAMES.get(attrs.get(FEC, "SAI_PORT_FEC_MODE_NONE"), NOT_AVAILABLE)}


def config_state(old: Mapping[str, str], attrs: Attrs, first: bool) -> tuple[dict[str, str], list[str]]:
    """STATE_DB PORT_TABLE fields to set and to delete after a port task applied ``attrs`` to a port
    that had ``old`` (``first``: it was just created). Pure."""
    new = {**old, **dict(attrs)}
    sets: dict[str, str] = {}
    drops: list[str] = []
    given = dict(attrs)
    if AUTONEG in given and (old.get(AUTONEG) != given[AUTONEG]) and not first:
        drops.append("rmt_adv_speeds")
    if LINK_TRAINING in given and (first or old.get(LINK_TRAINING) != given[LINK_TRAINING]):
        sets["link_training_status"] = "on" if given[LINK_TRAINING] == "true" else "off"
    if UNRELIABLE_LOS in given:
        sets["phy_ctrl_unreliable_los"] = given[UNRELIABLE_LOS]
    sets.update(polled_state(new))
    return sets, [d for d in drops if d not in sets]


def polled_state(attrs: Mapping[str, str], oper_changed: bool = False) -> dict[str, str]:
    """What the autoneg / link-training poller (and an oper change) writes for a port with ``attrs``."""
    admin_up = attrs.get(ADMIN) == "true"
    out: dict[str, str] = {}
    if attrs.get(AUTONEG) == "true" and (admin_up or oper_changed):
        out["rmt_adv_speeds"] = NOT_AVAILABLE
    if attrs.get(LINK_TRAINING) == "true" and (admin_up or oper_changed):
        out["link_training_status"] = "on" if admin_up else "off"
    return out


def parse_host_tx_ready(data: str) -> list[tuple[str, bool]]:
    """A ``port_host_tx_ready`` notification's data (a JSON object, or a list of them, with ``port_id``
    and ``host_tx_ready_status``) as (port oid, ready) pairs; raises ValueError naming what is wrong."""
    try:
        items = json.loads(data)
    except (ValueError, RecursionError):
        raise ValueError("not JSON") from None
    items = items if isinstance(items, list) else [items]
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("port_id"), str) \
                or not isinstance(item.get("host_tx_ready_status"), str):
            raise ValueError(f"item {str(item)[:100]!r} is not {{port_id, host_tx_ready_status}} strings")
        out.append((item["port_id"], item["host_tx_ready_status"] == TX_READY))
    return out
