"""Longest-prefix-match structures: IPv4 as a DIR-24-8 table, IPv6 as sorted masked keys per prefix
length. Both map an address to a route index (-1 = no route) and are built and searched vectorised.

IPv4 (STYLE.md 5): ``tbl24`` has one int32 per /24. 0 = no route, ``r + 1`` = route ``r`` (prefix
length <= 24 covering that /24), ``-(k + 1)`` = extension bucket ``k``: 256 entries in ``tbl8`` for the
routes of length 25..32 in that /24 (each bucket starts with the /24's covering route). The table is
``np.zeros`` (2^24 x 4 B = 64 MiB of address space that the OS pages in only where written).

IPv6: for each prefix length present, sorted 16-byte big-endian keys of the masked prefixes; a lookup
tries the lengths longest first and keeps the first hit (one ``searchsorted`` per length present).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fastpath.tables import I32, U64

TBL24 = 1 << 24
ALL64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True)
class Lpm4:
    tbl24: I32
    tbl8: I32          # [n_buckets * 256]


@dataclass(frozen=True)
class Lpm6:
    lengths: tuple[int, ...]                  # longest first
    keys: tuple[npt.NDArray[np.void], ...]    # per length: sorted V16 masked prefixes
    routes: tuple[I32, ...]                   # per length: route index of each key


SLICE_SPAN = 256  # from this span up (prefixes of /16 and shorter: at most 65536 of them) fill by slices


def _fill_ranges(table: I32, starts: npt.NDArray[np.int64], span: int, values: I32) -> None:
    """table[s:s+span] = v for every (s, v); ranges of one length are disjoint."""
    if span == 1:
        table[starts] = values
        return
    if span >= SLICE_SPAN:  # a memset each: an index array would be span x n entries (2^24 for a default route)
        for start, value in zip(starts.tolist(), values.tolist(), strict=True):
            table[start:start + span] = value
        return
    idx = (starts[:, None] + np.arange(span, dtype=np.int64)[None, :]).ravel()
    table[idx] = np.repeat(values, span)


def build_lpm4(addr: npt.NDArray[np.uint32], length: npt.NDArray[np.int32], route: I32) -> Lpm4:
    """DIR-24-8 over IPv4 routes (``addr`` host-order uint32, already masked); later duplicates win."""
    tbl24 = np.zeros(TBL24, dtype=np.int32)
    addr64 = addr.astype(np.int64)
    for plen in range(0, 25):
        sel = length == plen
        if sel.any():
            _fill_ranges(tbl24, addr64[sel] >> 8, 1 << (24 - plen), route[sel] + 1)
    long_sel = length > 24
    if not long_sel.any():
        return Lpm4(tbl24, np.zeros(0, dtype=np.int32))
    blocks = np.unique(addr64[long_sel] >> 8)
    tbl8 = np.repeat(tbl24[blocks], 256).astype(np.int32)
    tbl24[blocks] = -(np.arange(len(blocks), dtype=np.int32) + 1)
    for plen in range(25, 33):
        sel = length == plen
        if sel.any():
            a = addr64[sel]
            bucket = np.searchsorted(blocks, a >> 8)
            _fill_ranges(tbl8, bucket * 256 + (a & 0xFF), 1 << (32 - plen), route[sel] + 1)
    return Lpm4(tbl24, tbl8)


def lookup_lpm4(lpm: Lpm4, dst: npt.NDArray[np.uint32] | npt.NDArray[np.uint64]) -> I32:
    """Route index per address (unsigned, IPv4 in the low 32 bits), -1 when no route matches."""
    d = dst.astype(np.uint64, copy=False) & np.uint64(0xFFFFFFFF)
    v = lpm.tbl24[d >> np.uint64(8)]
    ext = np.flatnonzero(v < 0)
    if len(ext):
        v[ext] = lpm.tbl8[(-v[ext].astype(np.int64) - 1) * 256 + (d[ext] & np.uint64(0xFF)).astype(np.int64)]
    out: I32 = v - 1
    return out


def _mask(hi: U64, lo: U64, plen: int) -> tuple[U64, U64]:
    if plen <= 64:
        m_hi = ALL64 << np.uint64(64 - plen) if plen else np.uint64(0)
        return hi & m_hi, np.zeros_like(lo)
    m_lo = ALL64 << np.uint64(128 - plen) if plen < 128 else ALL64
    return hi, lo & m_lo


def _keys(hi: U64, lo: U64) -> npt.NDArray[np.void]:
    both = np.empty((len(hi), 2), dtype=">u8")
    both[:, 0] = hi
    both[:, 1] = lo
    return np.ascontiguousarray(both).view("V16").ravel()


def build_lpm6(addr: U64, length: npt.NDArray[np.int32], route: I32) -> Lpm6:
    """Per-length sorted keys over IPv6 routes (``addr`` [n, 2] hi/lo, already masked)."""
    lengths = sorted({int(x) for x in np.unique(length)}, reverse=True)
    keys, routes = [], []
    for plen in lengths:
        sel = np.flatnonzero(length == plen)
        k = _keys(*_mask(addr[sel, 0], addr[sel, 1], plen))
        order = np.argsort(k, kind="stable")
        keys.append(k[order])
        routes.append(route[sel][order].astype(np.int32))
    return Lpm6(tuple(lengths), tuple(keys), tuple(routes))


def lookup_lpm6(lpm: Lpm6, dst: U64) -> I32:
    """Route index per address ([n, 2] hi/lo), -1 when no route matches."""
    out = np.full(len(dst), -1, dtype=np.int32)
    todo = np.arange(len(dst))
    for plen, keys, routes in zip(lpm.lengths, lpm.keys, lpm.routes, strict=True):
        if not len(todo):
            break
        q = _keys(*_mask(dst[todo, 0], dst[todo, 1], plen))
        pos = np.minimum(np.searchsorted(keys, q, side="right") - 1, len(keys) - 1)
        hit = (pos >= 0) & (keys[np.maximum(pos, 0)] == q)
        out[todo[hit]] = routes[pos[hit]]
        todo = todo[~hit]
    return out
