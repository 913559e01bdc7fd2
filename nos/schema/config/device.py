"""Row models for the device-wide tables: DEVICE_METADATA, FLEX_COUNTER_TABLE, BREAKOUT_CFG.

YANG: sonic-device_metadata.yang, sonic-flex_counter.yang, sonic-breakout_cfg.yang. DEVICE_METADATA has
many more leaves than are declared here; undeclared ones are kept and reported as unknown fields.
``type`` is a free string here: its YANG pattern lists device roles and grows with every release, so a
fixed list would reject newer real files.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from nos.schema.config import (
    ENABLE_DISABLE,
    ENABLED_DISABLED,
    MAC,
    U8,
    U16,
    U32,
    Bool,
    Choice,
    Int,
    Ip,
    KeyPart,
    KeyShape,
    ListOf,
    Match,
    RowModel,
    TableSchema,
    Text,
    UInt,
    single,
)
from nos.schema.tables import (
    CFG_BREAKOUT_CFG_TABLE_NAME,
    CFG_DEVICE_METADATA_TABLE_NAME,
    CFG_FLEX_COUNTER_TABLE_NAME,
)

DEVICE_METADATA_KEY = "localhost"
HOSTNAME = Text(1, 63)
UP_DOWN = Choice("up", "down")


class DeviceMetadataRow(RowModel):
    """``DEVICE_METADATA|localhost``."""

    hwsku: Annotated[str | None, Text(1, 255)] = None
    hostname: Annotated[str | None, HOSTNAME] = None
    platform: Annotated[str | None, Text(1, 255)] = None
    mac: Annotated[str | None, MAC] = None
    type: Annotated[str | None, Text(1, 255)] = None
    asic_id: Annotated[str | None, Text(1, 16)] = None
    asic_name: str | None = None
    bgp_asn: Annotated[int | None, Int(1, U32)] = None
    bgp_router_id: Annotated[str | None, Ip(4)] = None
    deployment_id: Annotated[int | None, UInt(U32)] = None
    buffer_model: Annotated[str | None, Choice("traditional", "dynamic")] = None
    default_bgp_status: Annotated[str | None, UP_DOWN] = None
    default_pfcwd_status: Annotated[str | None, ENABLE_DISABLE] = None
    docker_routing_config_mode: Annotated[
        str | None, Choice("separated", "unified", "split", "split-unified")
    ] = None
    synchronous_mode: Annotated[str | None, ENABLE_DISABLE] = None
    yang_config_validation: Annotated[str | None, ENABLE_DISABLE] = None
    frr_mgmt_framework_config: Annotated[bool | None, Bool()] = None
    switch_type: Annotated[str | None, Choice("chassis-packet", "fabric", "npu", "voq", "dpu")] = None
    switch_id: Annotated[int | None, UInt(U16)] = None
    max_cores: Annotated[int | None, UInt(U8)] = None
    subtype: Annotated[
        str | None, Choice("DualToR", "SmartSwitch", "Supervisor", "UpstreamLC", "DownstreamLC")
    ] = None
    dualatortype: Annotated[str | None, Choice("active-active", "active-standby")] = None
    peer_switch: Annotated[str | None, HOSTNAME] = None
    chassis_hostname: Annotated[str | None, HOSTNAME] = None
    storage_device: Annotated[bool | None, Bool()] = None
    dhcp_server: Annotated[str | None, ENABLED_DISABLED] = None
    bgp_adv_lo_prefix_as_128: Annotated[bool | None, Bool()] = None
    suppress_fib_pending: Annotated[str | None, ENABLED_DISABLED, Field(alias="suppress-fib-pending")] = None
    nexthop_group: Annotated[str | None, ENABLED_DISABLED] = None
    create_only_config_db_buffers: Annotated[bool | None, Bool()] = None
    supporting_bulk_counter_groups: Annotated[list[str] | None, ListOf(Text())] = None
    rack_mgmt_map: Annotated[str | None, Text(0, 128)] = None
    timezone: Annotated[str | None, Text(1, 255)] = None
    cloudtype: str | None = None
    region: str | None = None
    sub_role: str | None = None
    downstream_subrole: str | None = None
    resource_type: str | None = None
    cluster: str | None = None
    slice_type: str | None = None


FLEX_STATUS = ENABLE_DISABLE


class FlexCounterRow(RowModel):
    """``FLEX_COUNTER_TABLE|<group>`` (PORT, QUEUE, PG_WATERMARK, PFCWD, ...)."""

    FLEX_COUNTER_STATUS: Annotated[str | None, FLEX_STATUS] = None
    FLEX_COUNTER_DELAY_STATUS: Annotated[bool | None, Bool(capitalised=True)] = None
    POLL_INTERVAL: Annotated[int | None, Int(100, U32)] = None
    BULK_CHUNK_SIZE: Annotated[int | None, Int(1, U32)] = None
    BULK_CHUNK_SIZE_PER_PREFIX: str | None = None


class BreakoutCfgRow(RowModel):
    """``BREAKOUT_CFG|<parent port>``: the current breakout mode. The parent need not be in PORT
    (during dynamic port breakout it is not), so the key is not a reference."""

    brkout_mode: Annotated[str | None, Text(1, 64)] = None


DEVICE_METADATA = TableSchema(
    CFG_DEVICE_METADATA_TABLE_NAME,
    (
        KeyShape(
            (KeyPart("name", Match(DEVICE_METADATA_KEY, f"'{DEVICE_METADATA_KEY}'")),), DeviceMetadataRow
        ),
    ),
)
FLEX_COUNTER_TABLE = single(CFG_FLEX_COUNTER_TABLE_NAME, FlexCounterRow)
BREAKOUT_CFG = single(CFG_BREAKOUT_CFG_TABLE_NAME, BreakoutCfgRow, Text(1, 255))

SCHEMAS = (DEVICE_METADATA, FLEX_COUNTER_TABLE, BREAKOUT_CFG)
