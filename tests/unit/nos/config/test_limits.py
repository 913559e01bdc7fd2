"""The JSON nesting limit, checked without parsing: exact against a parser's own depth, brackets in
strings ignored, and never letting the standard library's parser recurse into ``RecursionError``."""

from __future__ import annotations

import json
import random

import pytest

from nos.config import limits
from nos.config.limits import MAX_DEPTH, TooDeep, loads, nesting_exceeds


def depth(value: object) -> int:
    """A parsed document's nesting (iteratively: the documents here are deeper than Python recurses)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack += [(child, level + 1) for child in (node.values() if isinstance(node, dict) else node)]
    return deepest


def nested(levels: int, leaf: object = "x[{") -> object:
    document = leaf
    for level in range(levels):
        document = [document] if level % 2 else {"k[": document, "pad]": "]]"}
    return document


def nested_text(levels: int) -> str:
    """``nested(levels)`` as JSON, written without recursing."""
    opens = "".join("[" if level % 2 else '{"k[": ' for level in reversed(range(levels)))
    closes = "".join("]" if level % 2 else ', "pad]": "]]"}' for level in range(levels))
    return opens + '"x[{"' + closes


@pytest.mark.parametrize("levels", [0, 1, 4, 63, 64, 65, 500, 5000])
def test_the_limit_is_exact(levels: int) -> None:
    text = nested_text(levels)
    if levels <= 500:
        assert json.loads(text) == nested(levels)
    assert nesting_exceeds(text) == (levels > MAX_DEPTH)
    assert nesting_exceeds(text.encode(), limit=levels) is False
    assert nesting_exceeds(text.encode(), limit=max(0, levels - 1)) is (levels > 0)


def test_random_documents_agree_with_the_parser() -> None:
    rnd = random.Random(7)
    strings = ["a[b", "{", 'x\\"[', "\\\\", "]]", "", "\\u005b"]

    def build(budget: int) -> object:
        if budget == 0 or rnd.random() < 0.15:
            return rnd.choice([*strings, 1, None, True])
        if rnd.random() < 0.5:
            return [build(budget - 1) for _ in range(rnd.randint(0, 1) + (rnd.random() < 0.3))]
        width = rnd.randint(0, 1) + (rnd.random() < 0.3)
        return {rnd.choice(strings) + str(i): build(budget - 1) for i in range(width)}

    for _ in range(2000):
        document = build(rnd.randint(0, 80))
        text = json.dumps(document)
        for limit in (1, 3, 10, 64):
            assert nesting_exceeds(text, limit) == (depth(document) > limit), (limit, text[:200])


def test_a_large_structure_takes_the_running_sum_and_agrees() -> None:
    wide = [[[{}] for _ in range(limits.BY_PASSES)], nested(60)]
    assert len(json.dumps(wide)) > limits.BY_PASSES and not nesting_exceeds(json.dumps(wide))
    deep = [[[{}] for _ in range(limits.BY_PASSES)], nested(65)]
    assert nesting_exceeds(json.dumps(deep))


@pytest.mark.parametrize("text", ["[" * 5000, "[" * 5000 + "]", '{"a":' * 2000, '[{"a":' * 1000,
                                  "[" + "[]," * 40 + "[" * 2000])
def test_malformed_deep_text_never_reaches_the_parser(text: str) -> None:
    with pytest.raises(RecursionError):
        json.loads(text)  # what the check stands in front of
    with pytest.raises(TooDeep, match=f"deeper than {MAX_DEPTH} levels"):
        loads(text)


@pytest.mark.parametrize("text", ["]" + "[" * 5000, "[" * 10 + "}", '"' + "[" * 5000, "[{" * 1000, "[" * 60 + "]" * 61,
                                  '["' + "[" * 3000 + "]" * 3000])
def test_other_malformed_text_is_refused_never_with_a_recursion_error(text: str) -> None:
    with pytest.raises(ValueError):  # TooDeep or the parser's JSONDecodeError
        loads(text)


def test_brackets_in_strings_and_escapes_are_text() -> None:
    assert not nesting_exceeds(json.dumps({"description": "[" * 1000, "k": ['\\"[' * 100, "\\" * 7 + "[" * 99]}))
