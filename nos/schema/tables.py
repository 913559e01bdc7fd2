"""Table names, spelled as in swss-common ``common/schema.h``.

Naming follows schema.h: ``APP_*_TABLE_NAME`` (APPL_DB), ``CFG_*_TABLE_NAME`` (CONFIG_DB),
``STATE_*_TABLE_NAME`` (STATE_DB), ``COUNTERS_*`` (COUNTERS_DB).
"""

from __future__ import annotations

# ---- APPL_DB ----------------------------------------------------------------------------------
APP_PORT_TABLE_NAME = "PORT_TABLE"
APP_SEND_TO_INGRESS_PORT_TABLE_NAME = "SEND_TO_INGRESS_PORT_TABLE"
APP_GEARBOX_TABLE_NAME = "GEARBOX_TABLE"
APP_LAG_TABLE_NAME = "LAG_TABLE"
APP_LAG_MEMBER_TABLE_NAME = "LAG_MEMBER_TABLE"
APP_VLAN_TABLE_NAME = "VLAN_TABLE"
APP_VLAN_MEMBER_TABLE_NAME = "VLAN_MEMBER_TABLE"
APP_INTF_TABLE_NAME = "INTF_TABLE"
APP_NEIGH_TABLE_NAME = "NEIGH_TABLE"
APP_NEIGH_RESOLVE_TABLE_NAME = "NEIGH_RESOLVE_TABLE"
APP_ROUTE_TABLE_NAME = "ROUTE_TABLE"
APP_NEXTHOP_GROUP_TABLE_NAME = "NEXTHOP_GROUP_TABLE"
APP_FDB_TABLE_NAME = "FDB_TABLE"
APP_VRF_TABLE_NAME = "VRF_TABLE"
APP_VXLAN_TUNNEL_TABLE_NAME = "VXLAN_TUNNEL_TABLE"
APP_VXLAN_TUNNEL_MAP_TABLE_NAME = "VXLAN_TUNNEL_MAP_TABLE"
APP_VXLAN_VRF_TABLE_NAME = "VXLAN_VRF_TABLE"
APP_VXLAN_EVPN_NVO_TABLE_NAME = "VXLAN_EVPN_NVO_TABLE"
APP_VXLAN_REMOTE_VNI_TABLE_NAME = "VXLAN_REMOTE_VNI_TABLE"
APP_VXLAN_FDB_TABLE_NAME = "VXLAN_FDB_TABLE"
APP_MCLAG_FDB_TABLE_NAME = "MCLAG_FDB_TABLE"
APP_ISOLATION_GROUP_TABLE_NAME = "ISOLATION_GROUP_TABLE"
APP_SWITCH_TABLE_NAME = "SWITCH_TABLE"
APP_COPP_TABLE_NAME = "COPP_TABLE"
APP_ACL_TABLE_TABLE_NAME = "ACL_TABLE_TABLE"
APP_ACL_RULE_TABLE_NAME = "ACL_RULE_TABLE"
APP_PFC_WD_TABLE_NAME = "PFC_WD_TABLE"
APP_BUFFER_POOL_TABLE_NAME = "BUFFER_POOL_TABLE"
APP_BUFFER_PROFILE_TABLE_NAME = "BUFFER_PROFILE_TABLE"
APP_BUFFER_PG_TABLE_NAME = "BUFFER_PG_TABLE"
APP_BUFFER_QUEUE_TABLE_NAME = "BUFFER_QUEUE_TABLE"
APP_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME = "BUFFER_PORT_INGRESS_PROFILE_LIST_TABLE"
APP_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME = "BUFFER_PORT_EGRESS_PROFILE_LIST_TABLE"
APP_SUPPRESS_VLAN_NEIGH_TABLE_NAME = "SUPPRESS_VLAN_NEIGH_TABLE"

# Special keys in APPL_DB PORT_TABLE (portsyncd).
PORT_CONFIG_DONE_KEY = "PortConfigDone"
PORT_INIT_DONE_KEY = "PortInitDone"

# ---- CONFIG_DB --------------------------------------------------------------------------------
CFG_DEVICE_METADATA_TABLE_NAME = "DEVICE_METADATA"
CFG_PORT_TABLE_NAME = "PORT"
CFG_BREAKOUT_CFG_TABLE_NAME = "BREAKOUT_CFG"
CFG_SEND_TO_INGRESS_PORT_TABLE_NAME = "SEND_TO_INGRESS_PORT"
CFG_LAG_TABLE_NAME = "PORTCHANNEL"
CFG_LAG_MEMBER_TABLE_NAME = "PORTCHANNEL_MEMBER"
CFG_VLAN_TABLE_NAME = "VLAN"
CFG_VLAN_MEMBER_TABLE_NAME = "VLAN_MEMBER"
CFG_INTF_TABLE_NAME = "INTERFACE"
CFG_LAG_INTF_TABLE_NAME = "PORTCHANNEL_INTERFACE"
CFG_VLAN_INTF_TABLE_NAME = "VLAN_INTERFACE"
CFG_LOOPBACK_INTERFACE_TABLE_NAME = "LOOPBACK_INTERFACE"
CFG_VLAN_SUB_INTF_TABLE_NAME = "VLAN_SUB_INTERFACE"
CFG_VRF_TABLE_NAME = "VRF"
CFG_STATIC_ROUTE_TABLE_NAME = "STATIC_ROUTE"
CFG_NEIGH_TABLE_NAME = "NEIGH"
CFG_BUFFER_POOL_TABLE_NAME = "BUFFER_POOL"
CFG_BUFFER_PROFILE_TABLE_NAME = "BUFFER_PROFILE"
CFG_BUFFER_PG_TABLE_NAME = "BUFFER_PG"
CFG_BUFFER_QUEUE_TABLE_NAME = "BUFFER_QUEUE"
CFG_BUFFER_PORT_INGRESS_PROFILE_LIST_NAME = "BUFFER_PORT_INGRESS_PROFILE_LIST"
CFG_BUFFER_PORT_EGRESS_PROFILE_LIST_NAME = "BUFFER_PORT_EGRESS_PROFILE_LIST"
CFG_PORT_CABLE_LEN_TABLE_NAME = "CABLE_LENGTH"
CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER = "DEFAULT_LOSSLESS_BUFFER_PARAMETER"
CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME = "LOSSLESS_TRAFFIC_PATTERN"
CFG_DSCP_TO_TC_MAP_TABLE_NAME = "DSCP_TO_TC_MAP"
CFG_DOT1P_TO_TC_MAP_TABLE_NAME = "DOT1P_TO_TC_MAP"
CFG_MPLS_TC_TO_TC_MAP_TABLE_NAME = "MPLS_TC_TO_TC_MAP"
CFG_TC_TO_QUEUE_MAP_TABLE_NAME = "TC_TO_QUEUE_MAP"
CFG_TC_TO_PRIORITY_GROUP_MAP_TABLE_NAME = "TC_TO_PRIORITY_GROUP_MAP"
CFG_PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_TABLE_NAME = "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"
CFG_PFC_PRIORITY_TO_QUEUE_MAP_TABLE_NAME = "MAP_PFC_PRIORITY_TO_QUEUE"
CFG_DSCP_TO_FC_MAP_TABLE_NAME = "DSCP_TO_FC_MAP"
CFG_EXP_TO_FC_MAP_TABLE_NAME = "EXP_TO_FC_MAP"
CFG_TC_TO_DOT1P_MAP_TABLE_NAME = "TC_TO_DOT1P_MAP"
CFG_TC_TO_DSCP_MAP_TABLE_NAME = "TC_TO_DSCP_MAP"
CFG_PORT_QOS_MAP_TABLE_NAME = "PORT_QOS_MAP"
CFG_QUEUE_TABLE_NAME = "QUEUE"
CFG_SCHEDULER_TABLE_NAME = "SCHEDULER"
CFG_WRED_PROFILE_TABLE_NAME = "WRED_PROFILE"
CFG_PFC_WD_TABLE_NAME = "PFC_WD"
CFG_FLEX_COUNTER_TABLE_NAME = "FLEX_COUNTER_TABLE"
CFG_VXLAN_TUNNEL_TABLE_NAME = "VXLAN_TUNNEL"
CFG_VXLAN_TUNNEL_MAP_TABLE_NAME = "VXLAN_TUNNEL_MAP"
CFG_VXLAN_EVPN_NVO_TABLE_NAME = "VXLAN_EVPN_NVO"
CFG_MCLAG_TABLE_NAME = "MCLAG_DOMAIN"
CFG_MCLAG_INTF_TABLE_NAME = "MCLAG_INTERFACE"
CFG_MCLAG_UNIQUE_IP_TABLE_NAME = "MCLAG_UNIQUE_IP"
CFG_SUPPRESS_VLAN_NEIGH_TABLE_NAME = "SUPPRESS_VLAN_NEIGH"
CFG_WATERMARK_TABLE_NAME = "WATERMARK_TABLE"
CFG_CRM_TABLE_NAME = "CRM"
# Not in SONiC: the RoCE intent and the rows it replaced (nos.intent.roce).
CFG_ROCE_TABLE_NAME = "ROCE"
CFG_ROCE_SAVED_TABLE_NAME = "NOS_ROCE_SAVED"

_CONFIG_SEPARATOR = "|"  # CONFIG_DB's (database_config.json): a row is the hash ``TABLE|key``


def table_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a CONFIG_DB table name, or None when it can: THE rule, on every surface
    (config files, JSON Patch, REST, gNMI, the DB layer).

    Table names are case-exact, as the Redis keys they become are: ``port`` is another table than
    ``PORT`` (one this switch does not model: kept, saved back, reported as not acted on), never a
    spelling of it. swss-common's ConfigDBConnector upper-cases the table name it is given (``set_entry``,
    ``mod_config``, ``get_table``) but not the names ``get_config`` reads back: that split once let
    ``{"port": ...}`` be validated as an unknown table and then replace ``PORT`` rows. Nothing here
    changes a name's case. Refused: the empty name, and a name holding the separator (its row would
    read back as a row of another table)."""
    if not name:
        return "a table name cannot be empty"
    if _CONFIG_SEPARATOR in name:
        return f"a table name cannot contain '{_CONFIG_SEPARATOR}' (it separates the table from the key)"
    return None


# The init indicator written after a config load (a plain string key, not a table).
CONFIG_DB_INITIALIZED_KEY = "CONFIG_DB_INITIALIZED"
CONFIG_DB_GENERATION_KEY = "NOS_CONFIG_GENERATION"  # ours: bumped by every atomic CONFIG_DB apply
# Ours: the channel every atomic CONFIG_DB apply publishes its rows on (config_apply.lua), read by the
# supervisor's journal (nos.runtime.config_journal).
CONFIG_DB_JOURNAL_CHANNEL = "NOS_CONFIG_JOURNAL"
CONFIG_APPLIED_CHANNEL = "NOS_CONFIG_APPLIED"  # ours: <generation>, published at the end of every apply
PROGRESS_CHANNEL = "NOS_PROGRESS"  # ours: "<daemon> <generation>" when a daemon has processed a generation
PROGRESS_FIELD = "config_gen"  # ours: NOS_DAEMON_TABLE field, the CONFIG_DB generation a daemon processed
# Ours, in every DB: tables and keys named NOS_* are the switch's own bookkeeping (NOS_ROCE_SAVED,
# NOS_CONFIG_GENERATION, NOS_DAEMON_TABLE, ...). REST and gNMI may read them but never write them.
INTERNAL_PREFIX = "NOS_"

# ---- STATE_DB ---------------------------------------------------------------------------------
STATE_PORT_TABLE_NAME = "PORT_TABLE"
STATE_LAG_TABLE_NAME = "LAG_TABLE"
STATE_VLAN_TABLE_NAME = "VLAN_TABLE"
STATE_VLAN_MEMBER_TABLE_NAME = "VLAN_MEMBER_TABLE"
STATE_INTERFACE_TABLE_NAME = "INTERFACE_TABLE"
STATE_FDB_TABLE_NAME = "FDB_TABLE"
STATE_MCLAG_REMOTE_FDB_TABLE_NAME = "MCLAG_REMOTE_FDB_TABLE"   # fdborch: the MC-LAG peer's MACs
STATE_MCLAG_TABLE_NAME = "MCLAG_TABLE"                         # mclagsyncd: <domain> session state
STATE_MCLAG_LOCAL_INTF_TABLE_NAME = "MCLAG_LOCAL_INTF_TABLE"
STATE_MCLAG_REMOTE_INTF_TABLE_NAME = "MCLAG_REMOTE_INTF_TABLE"
STATE_VRF_TABLE_NAME = "VRF_TABLE"
STATE_VRF_OBJECT_TABLE_NAME = "VRF_OBJECT_TABLE"
STATE_BUFFER_MAXIMUM_VALUE_TABLE = "BUFFER_MAX_PARAM_TABLE"
STATE_SWITCH_CAPABILITY_TABLE_NAME = "SWITCH_CAPABILITY"
STATE_FEATURE_TABLE_NAME = "FEATURE"
# Not in SONiC: where this switch's daemons report themselves (heartbeat, status, restarts).
STATE_NOS_DAEMON_TABLE_NAME = "NOS_DAEMON_TABLE"
# Not in SONiC: entries a daemon refused, by table and key (SONiC has APPL_STATE_DB responses).
STATE_NOS_REJECTED_TABLE_NAME = "NOS_REJECTED_TABLE"

# ---- COUNTERS_DB ------------------------------------------------------------------------------
COUNTERS_TABLE = "COUNTERS"
COUNTERS_PORT_NAME_MAP = "COUNTERS_PORT_NAME_MAP"
COUNTERS_LAG_NAME_MAP = "COUNTERS_LAG_NAME_MAP"
COUNTERS_QUEUE_NAME_MAP = "COUNTERS_QUEUE_NAME_MAP"
COUNTERS_QUEUE_PORT_MAP = "COUNTERS_QUEUE_PORT_MAP"
COUNTERS_QUEUE_INDEX_MAP = "COUNTERS_QUEUE_INDEX_MAP"
COUNTERS_QUEUE_TYPE_MAP = "COUNTERS_QUEUE_TYPE_MAP"
COUNTERS_PG_NAME_MAP = "COUNTERS_PG_NAME_MAP"
COUNTERS_PG_PORT_MAP = "COUNTERS_PG_PORT_MAP"
COUNTERS_PG_INDEX_MAP = "COUNTERS_PG_INDEX_MAP"
COUNTERS_RIF_NAME_MAP = "COUNTERS_RIF_NAME_MAP"
COUNTERS_RIF_TYPE_MAP = "COUNTERS_RIF_TYPE_MAP"
COUNTERS_BUFFER_POOL_NAME_MAP = "COUNTERS_BUFFER_POOL_NAME_MAP"

# ---- ASIC_DB ----------------------------------------------------------------------------------
ASIC_STATE_TABLE = "ASIC_STATE"
ASIC_GETRESPONSE_TABLE = "GETRESPONSE"
ASIC_NOTIFICATIONS_CHANNEL = "NOTIFICATIONS"
APP_FLUSH_FDB_REQUEST_CHANNEL = "FLUSHFDBREQUEST"   # APPL_DB channel: ["ALL"|"PORT"|"VLAN"|"PORTVLAN", data] (fdbclear)

# ---- CONFIG_DB tables referenced by the row models but not modelled themselves ------------------
CFG_MACSEC_PROFILE_TABLE_NAME = "MACSEC_PROFILE"
CFG_VNET_TABLE_NAME = "VNET"

# ---- Read by ``nos show`` (swss-common schema.h names) ----------------------------------------
STATE_LAG_MEMBER_TABLE_NAME = "LAG_MEMBER_TABLE"
STATE_TRANSCEIVER_INFO_TABLE_NAME = "TRANSCEIVER_INFO"
CFG_BGP_NEIGHBOR_TABLE_NAME = "BGP_NEIGHBOR"
CFG_FEATURE_TABLE_NAME = "FEATURE"

# ---- CONFIG_DB tables used by the interface and breakout managers -------------------------------
CFG_SAG_TABLE_NAME = "SAG"
CFG_ACL_TABLE_TABLE_NAME = "ACL_TABLE"
CFG_DEVICE_NEIGHBOR_TABLE_NAME = "DEVICE_NEIGHBOR"

# ---- PFC watchdog (swss-common schema.h; swss orchagent/pfcwdorch.cpp) --------------------------
APP_PFC_WD_INSTORM_TABLE_NAME = "PFC_WD_TABLE_INSTORM"   # APPL_DB plain hash per port: {"<queue idx>": "storm"}
PFC_WD_ACTION_CHANNEL = "PFC_WD_ACTION"                  # COUNTERS_DB channel: ["<queue oid>", "storm"|"restore"]
FLEX_COUNTER_TABLE = "FLEX_COUNTER_TABLE"                # FLEX_COUNTER_DB "FLEX_COUNTER_TABLE:<GROUP>:<oid>"
FLEX_COUNTER_GROUP_TABLE = "FLEX_COUNTER_GROUP_TABLE"    # FLEX_COUNTER_DB "FLEX_COUNTER_GROUP_TABLE:<GROUP>"

# ---- Traffic runs and packet traces (issue 6; not in SONiC) --------------------------------------
# STATE_DB hashes written by a client (nos.traffic.client) and answered by syncd_sim; the channels
# (STATE_DB) carry the hash's id.
NOS_TRAFFIC_JOB = "NOS_TRAFFIC_JOB"           # <id>: scenario, state, progress, sim_time_s, error, result
NOS_TRAFFIC_REQUEST = "NOS_TRAFFIC_REQUEST"   # channel: <id> of a queued NOS_TRAFFIC_JOB
NOS_TRAFFIC_EXPORT = "NOS_TRAFFIC_EXPORT"     # <id>: a string key, the compiled tables an export job asked for
NOS_TRACE = "NOS_TRACE"                       # <id>: packet, state, error, result
NOS_TRACE_REQUEST = "NOS_TRACE_REQUEST"       # channel: <id> of a queued NOS_TRACE

# ---- Links of a lab (issue 17; not in SONiC) -----------------------------------------------------
# STATE_DB NOS_LINK_TABLE|<port name>: written by a lab (nos.lab), read by syncd_sim. Whether the far end
# of a cabled port has light; a port without a row has carrier up (a switch on its own).
NOS_LINK_TABLE = "NOS_LINK_TABLE"
NOS_LINK_PEER = "peer"          # e.g. spine1:Ethernet0 or host:h1-1 (informational)
NOS_LINK_CARRIER = "carrier"    # up | down
CARRIER_UP = "up"
CARRIER_DOWN = "down"
