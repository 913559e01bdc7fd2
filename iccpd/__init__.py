"""iccpd: the MC-LAG control plane of one switch (SONiC's iccpd and mclagsyncd in one daemon).

``python -m iccpd --redis URL``. It reads CONFIG_DB MCLAG_DOMAIN / MCLAG_INTERFACE, DEVICE_METADATA's
MAC, the MCLAG PortChannels' and the peer link's oper state (STATE_DB LAG_TABLE / PORT_TABLE) and the
MACs this switch learnt (STATE_DB FDB_TABLE), talks ICCP-lite to the peer over TCP port 8888
(``protocol``, ``link``), runs the session (``session``: keepalives, session timeout, roles, system
MAC) and writes what mclagsyncd writes (``sync``): APPL_DB MCLAG_FDB_TABLE, ISOLATION_GROUP_TABLE,
LAG_TABLE/PORT_TABLE ``learn_mode`` and ``traffic_disable``, INTF_TABLE ``mac_addr``, and STATE_DB
MCLAG_TABLE, MCLAG_LOCAL_INTF_TABLE, MCLAG_REMOTE_INTF_TABLE.

Addresses: the session runs between MCLAG_DOMAIN ``source_ip`` and ``peer_ip``. On a lab host they are
not configured on any interface, so each address is first looked up in the JSON map named by
``NOS_ICCP_HOSTS`` (address -> the node's management address on the loopback, 127.x.y.z, which the lab
writes); an address not in the map is used as it is.
"""
