"""A SKU's default config turned to the dynamic buffer model."""

from __future__ import annotations

from nos.platform.dynamic_buffers import dynamic_config
from nos.platform.sku import load_sku


def test_force10_dynamic_config() -> None:
    base = load_sku("Force10-S6000").default_config()
    base["BUFFER_PG"]["Ethernet0|3-4"] = {"profile": "pg_lossless_100000_300m_profile"}
    dyn = dynamic_config(base)
    assert dyn["DEVICE_METADATA"]["localhost"]["buffer_model"] == "dynamic"
    assert dyn["DEFAULT_LOSSLESS_BUFFER_PARAMETER"] == {"AZURE": {"default_dynamic_th": "0"}}
    assert dyn["LOSSLESS_TRAFFIC_PATTERN"] == {"AZURE": {"mtu": "1024", "small_packet_percentage": "100"}}
    assert "size" not in dyn["BUFFER_POOL"]["ingress_lossless_pool"]
    assert dyn["BUFFER_POOL"]["egress_lossless_pool"]["size"] == "12766208"
    assert "Ethernet0|3-4" not in dyn["BUFFER_PG"] and "Ethernet0|0" in dyn["BUFFER_PG"]
    assert base["DEVICE_METADATA"]["localhost"]["buffer_model"] == "traditional"  # not modified
