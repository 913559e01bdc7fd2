"""The LPM structures against a brute-force longest match over random prefixes (plain data)."""

from __future__ import annotations

import numpy as np

from fastpath.lpm import build_lpm4, build_lpm6, lookup_lpm4, lookup_lpm6


def _brute(addrs: list[int], lens: list[int], queries: list[int], width: int) -> list[int]:
    out = []
    for q in queries:
        best, best_len = -1, -1
        for r, (a, plen) in enumerate(zip(addrs, lens, strict=True)):
            if plen > best_len and (q >> (width - plen)) == (a >> (width - plen)):
                best, best_len = r, plen
        out.append(best)
    return out


def test_ipv4_dir_24_8_equals_brute_force_longest_match():
    rng = np.random.default_rng(7)
    lens = rng.choice([0, 8, 12, 16, 20, 23, 24, 25, 27, 30, 31, 32], size=300).tolist()
    base = int(rng.integers(0, 2**32)) & 0xFFFF0000   # many prefixes share the first 16 bits: real overlaps
    raw = [(base | int(x)) if i % 2 else int(x) for i, x in enumerate(rng.integers(0, 2**32, size=300))]
    addrs = [a & ((0xFFFFFFFF << (32 - p)) & 0xFFFFFFFF) for a, p in zip(raw, lens, strict=True)]
    # unique (addr, len) so that "the" longest match is well defined
    seen, rows = set(), []
    for a, p in zip(addrs, lens, strict=True):
        if (a, p) not in seen:
            seen.add((a, p))
            rows.append((a, p))
    addrs, lens = [r[0] for r in rows], [r[1] for r in rows]
    lpm = build_lpm4(np.array(addrs, dtype=np.uint32), np.array(lens, dtype=np.int32),
                     np.arange(len(addrs), dtype=np.int32))
    queries = [a | int(rng.integers(0, 2**16)) for a in addrs[:200]] + rng.integers(0, 2**32, size=200).tolist()
    got = lookup_lpm4(lpm, np.array(queries, dtype=np.uint64)).tolist()
    assert got == _brute(addrs, lens, queries, 32)
    assert len(lpm.tbl8) > 0   # the /25../32 routes went to extension buckets


def test_ipv4_without_routes_misses_and_a_default_route_catches_all():
    empty = build_lpm4(np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))
    assert lookup_lpm4(empty, np.array([1, 2**32 - 1], dtype=np.uint32)).tolist() == [-1, -1]
    default = build_lpm4(np.array([0], dtype=np.uint32), np.array([0], dtype=np.int32), np.array([5], dtype=np.int32))
    assert lookup_lpm4(default, np.array([0, 2**32 - 1], dtype=np.uint32)).tolist() == [5, 5]


def test_ipv6_per_length_keys_equal_brute_force_longest_match():
    rng = np.random.default_rng(11)
    lens = rng.choice([0, 32, 48, 56, 64, 96, 112, 127, 128], size=120).tolist()
    base = int(rng.integers(0, 2**63)) << 64
    raw = [base | (int(rng.integers(0, 2**63)) << 1) if i % 3 else int(rng.integers(0, 2**63)) << 65
           for i in range(120)]
    rows = sorted({(a & (((1 << p) - 1) << (128 - p)), p) for a, p in zip(raw, lens, strict=True)})
    addrs, plens = [r[0] for r in rows], [r[1] for r in rows]
    words = np.array([[a >> 64, a & (2**64 - 1)] for a in addrs], dtype=np.uint64).reshape(-1, 2)
    lpm = build_lpm6(words, np.array(plens, dtype=np.int32), np.arange(len(addrs), dtype=np.int32))
    queries = [a | int(rng.integers(0, 2**20)) for a in addrs] + [int(rng.integers(0, 2**63)) << 64 for _ in range(50)]
    q = np.array([[x >> 64, x & (2**64 - 1)] for x in queries], dtype=np.uint64)
    assert lookup_lpm6(lpm, q).tolist() == _brute(addrs, plens, queries, 128)
