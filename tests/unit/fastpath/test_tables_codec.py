"""Compiled tables to bytes and back (fastpath.tables_codec): the same tables, the same forwarding,
and bytes that are not tables refused by name."""

from __future__ import annotations

import io
import json
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np
import pytest

from fastpath.forward import PacketBatch, forward
from fastpath.tables import Tables
from fastpath.tables_codec import CodecError, decode, encode
from fastpath.values import ip_words
from tests.unit.syncd_sim.compile.switchkit import ROUTER, Lab


@pytest.fixture(scope="module")
def tables() -> Tables:
    return Lab().tables()


def same(a: Any, b: Any, path: str = "tables") -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b), path
    elif is_dataclass(a):
        assert type(a) is type(b), path
        for f in fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]")
    else:
        assert a == b, path


def test_a_round_trip_gives_the_same_tables_lpm_included(tables: Tables) -> None:
    data = encode(tables)
    assert len(data) < 8 * 2**20  # the 64 MiB IPv4 direct tables are rebuilt, not sent
    same(tables, decode(data))


def test_a_round_trip_forwards_the_same(tables: Tables) -> None:
    rng = np.random.default_rng(7)
    n = 2000
    dst = rng.choice([ip_words(f"10.{a}.{b}.{c}")[2] for a in (1, 200) for b in (2, 9) for c in (3, 4, 9)], n)
    batch = PacketBatch.of(n, in_port=2, dst_mac=ROUTER, dst_ip=dst.astype(np.uint64),
                           l4_src=rng.integers(1024, 65535, n))
    before, after = forward(tables, batch), forward(decode(encode(tables)), batch)
    assert np.count_nonzero(before.egress_port >= 0) > n // 2  # most are routed: the check means something
    same(before, after, "forward")


def test_bytes_that_are_not_tables_are_refused() -> None:
    with pytest.raises(CodecError, match="not encoded tables"):
        decode(b"garbage")


def _archive(skeleton: object, **arrays: Any) -> bytes:
    out = io.BytesIO()
    np.savez(out, skeleton=np.frombuffer(json.dumps(skeleton).encode(), dtype=np.uint8), **arrays)
    return out.getvalue()


def test_an_unknown_class_or_missing_array_is_named() -> None:
    with pytest.raises(CodecError, match="unknown class 'os.system'"):
        decode(_archive({"@": "os.system", "f": {}}))
    with pytest.raises(CodecError, match="array a9 is missing"):
        decode(_archive({"@": "Tables", "f": {"version": {"#": "a9"}}}))
    with pytest.raises(CodecError, match="encoded int, not Tables"):
        decode(_archive(3))


def test_object_arrays_are_never_unpickled() -> None:
    out = io.BytesIO()
    np.savez(out, skeleton=np.frombuffer(b'{"#": "a0"}', dtype=np.uint8), a0=np.array([{"x": 1}], dtype=object))
    with pytest.raises(CodecError):
        decode(out.getvalue())
