"""Flow hashing for ECMP and LAG member choice, and the rendezvous (highest-random-weight) bucket
fill that makes the choice consistent.

A packet's flow hash mixes the selected header fields (``FIELD_*``, from the switch's SAI hash
objects) with the switch's seed through a splitmix64-style finaliser; the member is then
``buckets[group, hash % HASH_BUCKETS]``. The buckets are filled at compile time by rendezvous hashing:
bucket ``b`` goes to the member with the highest score ``weight / -ln(u(b, member))`` where ``u`` is a
uniform draw from a hash of (seed, bucket, member id). The member id is stable (from the next hop or
port object id), so removing a member re-homes only the buckets it held and every other flow stays
where it was; adding one takes buckets only from the others in proportion.

Approximation: real ASICs use CRC-based hashes and (resilient or plain modulo) member tables; the
distribution is statistically alike, the exact member for a given flow is not the hardware's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]

FIELD_SRC_IP, FIELD_DST_IP, FIELD_IP_PROTOCOL, FIELD_L4_SRC_PORT, FIELD_L4_DST_PORT, FIELD_IN_PORT = (
    1, 2, 4, 8, 16, 32)
DEFAULT_FIELDS = FIELD_SRC_IP | FIELD_DST_IP | FIELD_IP_PROTOCOL | FIELD_L4_SRC_PORT | FIELD_L4_DST_PORT
SAI_HASH_FIELDS = {
    "SAI_NATIVE_HASH_FIELD_SRC_IP": FIELD_SRC_IP,
    "SAI_NATIVE_HASH_FIELD_DST_IP": FIELD_DST_IP,
    "SAI_NATIVE_HASH_FIELD_IP_PROTOCOL": FIELD_IP_PROTOCOL,
    "SAI_NATIVE_HASH_FIELD_L4_SRC_PORT": FIELD_L4_SRC_PORT,
    "SAI_NATIVE_HASH_FIELD_L4_DST_PORT": FIELD_L4_DST_PORT,
    "SAI_NATIVE_HASH_FIELD_IN_PORT": FIELD_IN_PORT,
}

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def mix64(x: U64) -> U64:
    """splitmix64 finaliser, elementwise (wrapping uint64 arithmetic)."""
    z = (x ^ (x >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


_K = tuple(np.uint64(k) for k in (
    0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
    0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x27D4EB2F165667C5, 0x94D049BB133111EB, 0xBF58476D1CE4E5B9))


def flow_hash(columns: dict[str, Any], n: int, fields: int, seed: int) -> U64:
    """The flow hash of ``n`` packets from the selected columns (``src_ip``/``dst_ip`` as [n, 2]):
    each field times its own odd constant, XORed, then the splitmix64 finaliser."""
    h = np.full(n, np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ _GOLDEN, dtype=np.uint64)
    parts: list[tuple[int, str, int | None]] = [
        (FIELD_SRC_IP, "src_ip", 0), (FIELD_SRC_IP, "src_ip", 1), (FIELD_DST_IP, "dst_ip", 0),
        (FIELD_DST_IP, "dst_ip", 1), (FIELD_IP_PROTOCOL, "ip_proto", None), (FIELD_L4_SRC_PORT, "l4_src", None),
        (FIELD_L4_DST_PORT, "l4_dst", None), (FIELD_IN_PORT, "in_port", None)]
    for k, (bit, name, col) in enumerate(parts):
        if fields & bit:
            value = columns[name] if col is None else columns[name][:, col]
            h ^= np.asarray(value).astype(np.uint64) * _K[k]
    return mix64(h)


def hrw_buckets(member_ptr: npt.NDArray[np.int64], member_id: U64, member_weight: npt.NDArray[np.float64],
                member_value: npt.NDArray[np.int32], n_buckets: int, seed: int) -> npt.NDArray[np.int32]:
    """Fill ``[n_groups, n_buckets]`` with ``member_value`` by rendezvous hashing.

    Group ``g`` has members ``member_ptr[g]:member_ptr[g+1]`` (CSR). An empty group's row is -1.
    Vectorised over all (group, bucket, member) triples, grouped by member count.
    """
    n_groups = len(member_ptr) - 1
    out = np.full((n_groups, n_buckets), -1, dtype=np.int32)
    counts = np.diff(member_ptr)
    buckets = np.arange(n_buckets, dtype=np.uint64)
    base = mix64(np.full(n_buckets, np.uint64(seed & 0xFFFFFFFFFFFFFFFF), dtype=np.uint64) ^ buckets)
    for k in np.unique(counts[counts > 0]):
        groups = np.flatnonzero(counts == k)
        idx = member_ptr[groups][:, None] + np.arange(k)[None, :]          # [G, k]
        ids = member_id[idx]                                                 # [G, k]
        u = mix64(base[None, None, :] ^ mix64(ids[:, :, None]))              # [G, k, B]
        unit = ((u >> np.uint64(11)).astype(np.float64) + 0.5) * (1.0 / 9007199254740992.0)
        score = member_weight[idx][:, :, None] / -np.log(unit)
        best = np.argmax(score, axis=1)                                       # [G, B]
        out[groups] = member_value[np.take_along_axis(idx, best, axis=1)]
    return out
