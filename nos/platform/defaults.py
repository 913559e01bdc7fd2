"""Build a SKU's default startup config_db.json (as a dict) from the SKU's data.

Pure: takes a loaded :class:`~nos.platform.sku.Sku`, reads no files. The content is what SONiC's
templates render for a t1 device with the traditional buffer model:

* ``DEVICE_METADATA|localhost`` and the PORT / BREAKOUT_CFG rows of the default breakout;
* buffers as ``buffers_config.j2`` renders them: CABLE_LENGTH|AZURE, the SKU's pools and profiles
  (``buffers.json``), ``BUFFER_PG|<port>|0`` lossy and ``BUFFER_QUEUE|<port>|0-2/3-4/5-6``. No lossless
  PG rows: in the traditional model buffermgrd adds ``BUFFER_PG|<port>|3-4`` from pg_profile_lookup.ini;
* QoS as ``qos_config.j2`` renders the AZURE defaults (maps, schedulers, WRED, PORT_QOS_MAP, QUEUE);
  ``pfcwd_sw_enable`` on the lossless priorities unless the SKU's ``sku.json`` says
  ``"pfcwd_sw_enable": false`` (Force10-S6000: SONiC's virtual-switch tests expect a port to have no
  watchdog priorities until a test gives it some);
* the FLEX_COUNTER_TABLE groups that ``init_cfg.json.j2`` enables.

All values are strings. :func:`config_db_to_json` formats the dict as ``config save`` writes it.
"""

from __future__ import annotations

import json

from nos.platform.sku import Sku
from nos.schema import tables as t

ConfigDb = dict[str, dict[str, dict[str, str]]]

KEY_SEP = "|"  # CONFIG_DB key separator, as in config_db.json
LOCALHOST = "localhost"
AZURE = "AZURE"
GLOBAL = "global"
BUFFER_MODEL = "traditional"
DEFAULT_BGP_ASN = "65100"

LOSSLESS_TCS = (3, 4)
INGRESS_LOSSY_PROFILE = "ingress_lossy_profile"
EGRESS_LOSSY_PROFILE = "egress_lossy_profile"
EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
# buffers_config.j2: queue ranges of every port and the profile each gets.
BUFFER_QUEUE_PROFILES = (
    ("0-2", EGRESS_LOSSY_PROFILE),
    ("3-4", EGRESS_LOSSLESS_PROFILE),
    ("5-6", EGRESS_LOSSY_PROFILE),
)
BUFFER_PG_LOSSY = ("0", INGRESS_LOSSY_PROFILE)

# qos_config.j2 AZURE defaults.
DSCP_TO_TC_EXCEPTIONS = {3: 3, 4: 4, 5: 2, 8: 0, 46: 5, 48: 6}
DSCP_TO_TC_OTHERS = 1
TC_TO_PG_EXCEPTIONS = {3: 3, 4: 4, 7: 7}
NUM_TCS = 8
NUM_DSCP = 64
LOSSY_SCHEDULER = "scheduler.0"
LOSSLESS_SCHEDULER = "scheduler.1"
SCHEDULERS = {
    LOSSY_SCHEDULER: {"type": "DWRR", "weight": "14"},
    LOSSLESS_SCHEDULER: {"type": "DWRR", "weight": "15"},
}
WRED_LOSSLESS = "AZURE_LOSSLESS"
LOSSY_QUEUES = (0, 1, 2, 5, 6)
WRED_MIN_THRESHOLD = "1048576"
WRED_MAX_THRESHOLD = "2097152"
WRED_DROP_PROBABILITY = "5"
COLORS = ("green", "yellow", "red")

# init_cfg.json.j2: flex counter groups enabled at boot.
FLEX_COUNTER_GROUPS = (
    "PORT",
    "QUEUE",
    "PG_WATERMARK",
    "PG_DROP",
    "QUEUE_WATERMARK",
    "BUFFER_POOL_WATERMARK",
    "PFCWD",
    "PORT_BUFFER_DROP",
    "RIF",
)
# Key of buffers.json that is not a table: the cable length every port starts with.
DEFAULT_CABLE_KEY = "default_cable_length"


def _key(*parts: str) -> str:
    return KEY_SEP.join(parts)


def _csv(values: tuple[int, ...]) -> str:
    return ",".join(str(v) for v in values)


def _device_metadata(sku: Sku) -> dict[str, str]:
    return {
        "hostname": "sonic",
        "hwsku": sku.name,
        "platform": sku.platform,
        "mac": sku.spec["mac"],
        "type": "LeafRouter",
        "buffer_model": BUFFER_MODEL,
        "synchronous_mode": "enable",
        "default_bgp_status": "up",
        "default_pfcwd_status": "disable",
        "bgp_asn": DEFAULT_BGP_ASN,
    }


def _port_tables(sku: Sku, port_rows: dict[str, dict[str, str]]) -> ConfigDb:
    return {
        t.CFG_DEVICE_METADATA_TABLE_NAME: {LOCALHOST: _device_metadata(sku)},
        t.CFG_PORT_TABLE_NAME: port_rows,
        t.CFG_BREAKOUT_CFG_TABLE_NAME: {p: {"brkout_mode": sku.default_mode(p)} for p in sku.parents()},
    }


def _buffer_tables(sku: Sku, ports: list[str]) -> ConfigDb:
    cable: str = sku.buffers[DEFAULT_CABLE_KEY]
    pg_range, pg_profile = BUFFER_PG_LOSSY
    return {
        t.CFG_PORT_CABLE_LEN_TABLE_NAME: {AZURE: {port: cable for port in ports}},
        t.CFG_BUFFER_POOL_TABLE_NAME: _copy_table(sku.buffers[t.CFG_BUFFER_POOL_TABLE_NAME]),
        t.CFG_BUFFER_PROFILE_TABLE_NAME: _copy_table(sku.buffers[t.CFG_BUFFER_PROFILE_TABLE_NAME]),
        t.CFG_BUFFER_PG_TABLE_NAME: {_key(port, pg_range): {"profile": pg_profile} for port in ports},
        t.CFG_BUFFER_QUEUE_TABLE_NAME: {
            _key(port, queues): {"profile": profile}
            for port in ports
            for queues, profile in BUFFER_QUEUE_PROFILES
        },
    }


def _copy_table(table: dict[str, dict[str, object]]) -> dict[str, dict[str, str]]:
    return {key: {field: str(value) for field, value in row.items()} for key, row in table.items()}


def _qos_maps() -> ConfigDb:
    dscp = {str(d): str(DSCP_TO_TC_EXCEPTIONS.get(d, DSCP_TO_TC_OTHERS)) for d in range(NUM_DSCP)}
    identity = {str(tc): str(tc) for tc in range(NUM_TCS)}
    tc_to_pg = {str(tc): str(TC_TO_PG_EXCEPTIONS.get(tc, 0)) for tc in range(NUM_TCS)}
    return {
        t.CFG_DSCP_TO_TC_MAP_TABLE_NAME: {AZURE: dscp},
        t.CFG_TC_TO_QUEUE_MAP_TABLE_NAME: {AZURE: dict(identity)},
        t.CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME: {AZURE: tc_to_pg},
        t.CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME: {AZURE: dict(identity)},
        t.CFG_SCHEDULER_TABLE_NAME: {name: dict(row) for name, row in SCHEDULERS.items()},
        t.CFG_WRED_PROFILE_TABLE_NAME: {WRED_LOSSLESS: _wred_lossless()},
    }


def _wred_lossless() -> dict[str, str]:
    row = {"ecn": "ecn_all"}
    for color in COLORS:
        row[f"wred_{color}_enable"] = "true"
        row[f"{color}_min_threshold"] = WRED_MIN_THRESHOLD
        row[f"{color}_max_threshold"] = WRED_MAX_THRESHOLD
        row[f"{color}_drop_probability"] = WRED_DROP_PROBABILITY
    return row


def _port_qos_tables(sku: Sku, ports: list[str]) -> ConfigDb:
    port_map = {
        "dscp_to_tc_map": AZURE,
        "tc_to_queue_map": AZURE,
        "tc_to_pg_map": AZURE,
        "pfc_to_queue_map": AZURE,
        "pfc_enable": _csv(LOSSLESS_TCS),
    }
    if sku.spec.get("pfcwd_sw_enable", True):
        port_map["pfcwd_sw_enable"] = _csv(LOSSLESS_TCS)
    port_qos = {port: dict(port_map) for port in ports}
    port_qos[GLOBAL] = {"dscp_to_tc_map": AZURE}
    queues: dict[str, dict[str, str]] = {}
    for port in ports:
        for queue in LOSSLESS_TCS:
            queues[_key(port, str(queue))] = {"scheduler": LOSSLESS_SCHEDULER, "wred_profile": WRED_LOSSLESS}
        for queue in LOSSY_QUEUES:
            queues[_key(port, str(queue))] = {"scheduler": LOSSY_SCHEDULER}
    return {t.CFG_PORT_QOS_MAP_TABLE_NAME: port_qos, t.CFG_QUEUE_TABLE_NAME: queues}


def _flex_counters() -> ConfigDb:
    return {
        t.CFG_FLEX_COUNTER_TABLE_NAME: {g: {"FLEX_COUNTER_STATUS": "enable"} for g in FLEX_COUNTER_GROUPS}
    }


def sku_to_config_db(sku: Sku) -> ConfigDb:
    """The SKU's default startup CONFIG_DB content, {table: {key: {field: value}}}."""
    port_rows = sku.default_ports()
    ports = list(port_rows)
    config: ConfigDb = {}
    parts = (_port_tables(sku, port_rows), _buffer_tables(sku, ports), _qos_maps(), _port_qos_tables(sku, ports))
    for part in (*parts, _flex_counters()):
        config.update(part)
    return config


def config_db_to_json(config: ConfigDb) -> str:
    """Format a config as ``config save`` writes config_db.json: keys sorted, indent 4 (plus a newline)."""
    return json.dumps(config, indent=4, sort_keys=True) + "\n"
