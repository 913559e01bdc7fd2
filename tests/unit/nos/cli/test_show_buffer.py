"""``show buffer_pool watermark`` and ``show buffer configuration`` rendering on plain data."""

from __future__ import annotations

from nos.cli.show.buffer import configuration_text, pool_rows
from nos.cli.show.counters_db import Counters


def test_pool_rows_read_user_watermarks_by_pool_name() -> None:
    pools = {"egress_lossy_pool": "oid:0x2", "ingress_lossless_pool": "oid:0x1"}
    c = Counters(maps={"COUNTERS_BUFFER_POOL_NAME_MAP": pools},
                 stats={"USER_WATERMARKS": {"oid:0x1": {"SAI_BUFFER_POOL_STAT_WATERMARK_BYTES": "4096"}}})
    rows = pool_rows(c, "USER_WATERMARKS", "SAI_BUFFER_POOL_STAT_WATERMARK_BYTES")
    assert rows == [["egress_lossy_pool", "N/A"], ["ingress_lossless_pool", "4096"]]


def test_configuration_lists_pools_then_profiles() -> None:
    text = configuration_text({"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "12766208"}},
                              {"ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0"}},
                              {"AZURE": {"mtu": "1024", "small_packet_percentage": "100"}})
    assert text.index("Lossless traffic pattern:") < text.index("Pool: ingress_lossless_pool") \
        < text.index("Profile: ingress_lossy_profile")
    assert "size  12766208" in text and "mode  dynamic" in text


def test_configuration_keeps_the_databases_order_and_says_when_a_table_is_empty() -> None:
    pools = {"b_pool": {"type": "ingress"}, "a_pool": {"size": "1", "mode": "static"}}
    text = configuration_text(pools, {})
    assert text == ("Pool: b_pool\n----  -------\ntype  ingress\n----  -------\n\n"
                    "Pool: a_pool\n----  ------\nsize  1\nmode  static\n----  ------\n\n"
                    "No buffer profile information available\n")
    assert configuration_text({}, {}) == ("No buffer pool information available\n"
                                          "No buffer profile information available\n")


def test_headroom_pool_is_the_ingress_lossless_pool() -> None:
    pools = {"egress_lossless_pool": "oid:0x2", "ingress_lossless_pool": "oid:0x1"}
    c = Counters(maps={"COUNTERS_BUFFER_POOL_NAME_MAP": pools})
    assert pool_rows(c, "USER_WATERMARKS", "SAI_BUFFER_POOL_STAT_XOFF_ROOM_WATERMARK_BYTES", headroom=True) == [
        ["ingress_lossless_pool", "N/A"]]
