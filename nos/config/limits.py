"""How deep JSON input may nest, checked before it is parsed: one limit for every surface that reads
configuration JSON (config files, checkpoints, JSON Patch files, REST bodies, gNMI Set values).

Why a limit: the standard library's parser recurses once per level and raises ``RecursionError`` near
1,000 levels (a REST 500 and a CLI traceback, once); orjson stops at 1,024 itself; ``jsonpatch`` and
``copy.deepcopy`` recurse again on what a parser accepted. A config_db.json nests 4 deep (document,
table, row, list field), a JSON Patch carrying a whole document 6; ``MAX_DEPTH`` (64) leaves ten
times that.

The check does not parse. ``nesting_exceeds`` counts ``[`` and ``{`` first (two C-speed scans): a
document with at most ``limit`` of them cannot nest deeper, which settles every small body (a one-row
PATCH in ~0.3 us). Otherwise it drops escapes, keeps only quotes and brackets and drops the strings
(brackets in a string are text, not structure), every step a C-speed ``bytes`` method. What is left
is the document's structure, a few thousand brackets for the 128-port config_db.json (~0.3 ms in all,
half of parsing it). Up to ``BY_PASSES`` of them, innermost ``[]`` pairs are removed level by level
(``bytes.replace``): brackets all gone within ``limit`` passes mean at most ``limit`` levels, and a run
of ``limit + 1`` opening brackets ends the check at once. Beyond that (only a huge or hostile
document: 16 MiB of nested blocks in ~0.15 s) a running sum over the brackets (numpy) gives the depth
in one pass. What is not balanced (malformed JSON) is left to the parser to report, unless more
opening brackets are left over than the limit allows: a parser would recurse into those first.
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 64  # levels of arrays and objects; a config_db.json needs 4
BY_PASSES = 64 << 10  # structural brackets up to which pair removal decides (beyond: running sums)

_STRING = re.compile(rb'"[^"]*"')  # once escapes are gone and only quotes and brackets are left
_ONE_KIND = bytes.maketrans(b"{}", b"[]")  # one bracket kind: depth is all that is counted
_NEITHER = bytes(b for b in range(256) if b not in b'[]{}"')


class TooDeep(ValueError):
    """Raised when JSON input nests deeper than the limit; the message names the limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the JSON nests deeper than {limit} levels of arrays and objects (the limit; "
                         "a config_db.json needs 4)")


def nesting_exceeds(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``data`` nests more than ``limit`` arrays and objects deep (see the
    module docstring; brackets inside strings do not count)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    brackets = _structure(raw)
    if len(brackets) <= limit:
        return False
    if len(brackets) > BY_PASSES:
        return _deepest(brackets, limit) > limit
    return _exceeds_by_passes(brackets, limit)


def _structure(raw: bytes) -> bytes:
    """The brackets of ``raw`` that are not in strings, all as ``[`` and ``]``."""
    if b"\\" in raw:  # escapes out first: ``\\`` before ``\"``, as a parser pairs them
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    # then all but quotes and brackets, then the strings: two adjacent quotes hold no bracket between
    # them (an empty string, or the end of one and the start of the next: dropping them joins two
    # strings' contents, text either way), and what is left of strings is few
    return _STRING.sub(b"", raw.translate(_ONE_KIND, _NEITHER).replace(b'""', b""))


def _exceeds_by_passes(brackets: bytes, limit: int) -> bool:
    deeper = b"[" * (limit + 1)
    for passes in range(limit + 1):  # after n passes every bracket is gone iff the text nests n deep
        if not brackets:
            return False
        if deeper in brackets:
            return True
        reduced = brackets.replace(b"[]", b"")
        if len(reduced) == len(brackets):  # unbalanced (']...[' is left): malformed JSON; a parser
            # stops at a stray ']' first, else it recurses into the opens left before failing
            return not reduced.startswith(b"]") and passes + len(reduced) > limit
        brackets = reduced
    return True  # a pair was still removed in pass limit + 1


def _deepest(brackets: bytes, limit: int) -> int:
    """The deepest running count of open brackets, by running sums over 1 MiB pieces (numpy, imported
    here: only a text with more than ``BY_PASSES`` structural brackets comes this way); stops once past
    ``limit``."""
    import numpy as np

    deepest = level = 0
    for start in range(0, len(brackets), 1 << 20):
        piece = np.frombuffer(brackets, dtype=np.uint8, count=min(1 << 20, len(brackets) - start), offset=start)
        running = np.cumsum(np.where(piece == ord("["), 1, -1).astype(np.int32)) + level
        deepest, level = max(deepest, int(running.max())), int(running[-1])
        if deepest > limit:
            break
    return deepest


def check_nesting(data: bytes | str, limit: int = MAX_DEPTH) -> None:
    """Raise ``TooDeep`` if ``data`` nests deeper than ``limit``."""
    if nesting_exceeds(data, limit):
        raise TooDeep(limit)


def loads(data: bytes | str, limit: int = MAX_DEPTH) -> object:
    """``json.loads`` of ``data`` after ``check_nesting``: raises ``TooDeep`` or ``json.JSONDecodeError``
    (and ``UnicodeDecodeError`` for bytes that are not UTF-8), never ``RecursionError``."""
    check_nesting(data, limit)
    return json.loads(data)


__all__ = ["MAX_DEPTH", "TooDeep", "check_nesting", "loads", "nesting_exceeds"]
