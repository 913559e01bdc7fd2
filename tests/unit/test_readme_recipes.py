"""How the doc test reads the README's recipes (tests/readme_recipes.py): plain text in, recipes out."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readme_recipes import (
    RUN_TAGS,
    Block,
    UntaggedBlock,
    drop_optional,
    fill,
    missing_output,
    parse_blocks,
    parse_readme,
    parse_recipes,
    split_comment,
)

README = Path(__file__).resolve().parents[2] / "README.md"

SESSION = """\
## Using it

```console
$ nos up                 # start
Switch ready in 0.55 s (sku X)
  rest       http://127.0.0.1:8000
$ curl -X POST http://h/x -H 'Content-Type: application/json' \\
       -d '{"a": "#1"}'     # a job: GET /jobs/<id>
$ nos config save [my.json]      # default: the run dir
$ nos config interface breakout Ethernet0 '1x400G[200G,100G]'
$ curl http://h/jobs/<id>
```

```sh
make run     # foreground

make test
```

### Picture

```text
$ not a command
```
"""


def test_console_blocks_give_commands_with_their_output_and_notes() -> None:
    recipes = parse_readme(SESSION)
    assert [r.command for r in recipes] == [
        "nos up",
        "curl -X POST http://h/x -H 'Content-Type: application/json' -d '{\"a\": \"#1\"}'",
        "nos config save",
        "nos config interface breakout Ethernet0 '1x400G[200G,100G]'",
        "curl http://h/jobs/<id>",
        "make run",
        "make test",
    ]
    assert recipes[0].output == ("Switch ready in 0.55 s (sku X)", "  rest       http://127.0.0.1:8000")
    assert recipes[0].note == "start" and recipes[1].note == "a job: GET /jobs/<id>"
    assert recipes[1].output == () and recipes[1].line == 7
    assert recipes[0].section == "Using it"
    assert recipes[4].placeholders == ("id",) and recipes[1].placeholders == ()


def test_blocks_carry_their_heading_and_tag() -> None:
    blocks = parse_blocks(SESSION)
    assert [(b.section, b.tag) for b in blocks] == [("Using it", "console"), ("Using it", "sh"), ("Picture", "text")]
    assert parse_recipes(blocks[2]) == []


def test_an_untagged_block_is_refused() -> None:
    with pytest.raises(UntaggedBlock, match="line 3"):
        parse_blocks("# A\n\n```\n$ nos up\n```\n")


@pytest.mark.parametrize(("line", "code", "note"), [
    ("nos status   # exit 0", "nos status", "exit 0"),
    ("echo 'a # b' \"c # d\"", "echo 'a # b' \"c # d\"", ""),
    ("curl http://h/x#frag", "curl http://h/x#frag", ""),
    ("echo \\# not", "echo \\# not", ""),
    ("# only a comment", "", "only a comment"),
])
def test_comments_outside_quotes_at_a_word_start(line: str, code: str, note: str) -> None:
    assert split_comment(line) == (code, note)


@pytest.mark.parametrize(("command", "default"), [
    ("nos config reload [my.json]", "nos config reload"),
    ("nos up [--sku NAME] [-d]", "nos up"),
    ("nos up [--tls-cert F [--tls-ca F]] -d", "nos up -d"),
    ("nos x 'a[b]' c[d]", "nos x 'a[b]' c[d]"),
])
def test_optional_arguments_are_left_out(command: str, default: str) -> None:
    assert drop_optional(command) == default


def test_placeholders_are_filled_outside_quotes_only() -> None:
    assert fill("curl http://h/jobs/<id> -d '<id>'", {"id": "42"}) == "curl http://h/jobs/42 -d '<id>'"
    with pytest.raises(KeyError):
        fill("curl http://h/jobs/<id>", {})


def test_shown_output_agrees_up_to_numbers_and_blanks() -> None:
    shown = ("Switch ready in 0.55 s (sku X)", "  rest       http://127.0.0.1:8000")
    actual = "Switch ready in 3.4 s (sku X)\n  gnmi  a\n  rest http://127.0.0.1:41000\nPress Ctrl-C\n"
    assert missing_output(shown, actual) == []
    assert missing_output(shown, "Switch ready in 3 s (sku Y)\n  rest http://127.0.0.1:1\n") == [shown[0]]
    assert missing_output(shown[::-1], actual) == [shown[0]]  # order counts


def test_the_readme_parses_and_has_recipes_in_its_usage_sections() -> None:
    recipes = parse_readme(README.read_text())
    sections = {r.section for r in recipes}
    assert {"Using a switch", "Management"} <= sections
    assert all(isinstance(b, Block) for b in parse_blocks(README.read_text()))


def test_no_readme_recipe_hides_in_a_block_that_is_not_run() -> None:
    hidden = [(b.line, b.tag) for b in parse_blocks(README.read_text())
              if b.tag not in RUN_TAGS and any(line.startswith("$ ") for line in b.lines)]
    assert not hidden, f"blocks with $ commands that are not console blocks: {hidden}"
