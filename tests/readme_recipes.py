"""The README's recipes as data: the commands of its shell blocks, for the doc test (issue 16).

Pure: text in, recipes out. Rules, so that a README edit knows what it is writing:

* Every fenced block carries an info string. ``console`` blocks are a session: a line starting with
  ``$ `` is a command and the lines after it, up to the next command, are its shown output. ``sh``,
  ``bash`` and ``shell`` blocks are scripts: every non-blank line is a command. Any other tag
  (``text``, ``json``) is not run. An untagged block is refused (:class:`UntaggedBlock`), so a new
  block is never skipped unnoticed.
* A ``#`` outside quotes, at the start of a word, starts a comment; it is kept as the recipe's note.
* A line ending in ``\\`` continues on the next one; the pieces are joined with one space.
* ``[...]`` outside quotes, as a word of its own, is an optional argument: the recipe runs in its
  default form, without it (``nos config save [my.json]`` runs ``nos config save``).
* ``<name>`` outside quotes is a placeholder, filled by the caller (:func:`fill`) from earlier output.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

RUN_TAGS = frozenset({"console", "sh", "bash", "shell"})
PROMPT = "$ "
_PLACEHOLDER = re.compile(r"<([A-Za-z_][A-Za-z0-9_-]*)>")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


class UntaggedBlock(ValueError):
    """Raised when a fenced block has no info string: say ``console``, ``sh`` or ``text``."""


@dataclass(frozen=True)
class Block:
    """One fenced block: the heading it is under, its info string, first content line (1-based)."""

    section: str
    tag: str
    line: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Recipe:
    """One command as a user would type it, the output the README shows after it, and its comment."""

    command: str
    section: str
    line: int
    output: tuple[str, ...] = ()
    note: str = ""

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(_PLACEHOLDER.findall(_unquoted_text(self.command)))


def parse_blocks(markdown: str) -> list[Block]:
    """Every fenced block with the nearest heading above it (``##`` or deeper, text without hashes)."""
    blocks: list[Block] = []
    section, fence, tag, start, body = "", None, "", 0, []
    for number, line in enumerate(markdown.splitlines(), start=1):
        if fence is None:
            if line.startswith("#"):
                section = line.lstrip("#").strip()
            elif line.startswith("```"):
                fence, tag, start, body = "```", line[3:].strip(), number, []
                if not tag:
                    raise UntaggedBlock(f"README line {number} ({section}): a block needs a tag "
                                        f"(console/sh for recipes, text otherwise)")
        elif line.startswith(fence):
            blocks.append(Block(section, tag, start + 1, tuple(body)))
            fence = None
        else:
            body.append(line)
    return blocks


def parse_recipes(block: Block) -> list[Recipe]:
    """The commands of one block (nothing for a block that is not a shell block)."""
    if block.tag not in RUN_TAGS:
        return []
    session = block.tag == "console"
    recipes: list[Recipe] = []
    lines = iter(enumerate(block.lines, start=block.line))
    for number, line in lines:
        if session and not line.startswith(PROMPT):
            if recipes:
                last = recipes[-1]
                recipes[-1] = Recipe(last.command, last.section, last.line, (*last.output, line), last.note)
            continue
        text = line[len(PROMPT):] if session else line
        if not text.strip():
            continue
        command, note = _logical_line(text, lines)
        if command:
            recipes.append(Recipe(command, block.section, number, note=note))
    return recipes


def parse_readme(markdown: str) -> list[Recipe]:
    return [recipe for block in parse_blocks(markdown) for recipe in parse_recipes(block)]


def _logical_line(first: str, rest: Iterator[tuple[int, str]]) -> tuple[str, str]:
    """One command from its first physical line and its continuations: (command, comment)."""
    pieces, notes = [], []
    text = first
    while True:
        code, note = split_comment(text)
        if note:
            notes.append(note)
        code = code.rstrip()
        continued = code.endswith("\\")
        pieces.append(code.removesuffix("\\").strip())
        if not continued:
            break
        text = next(rest, (0, ""))[1]
    command = drop_optional(" ".join(p for p in pieces if p))
    return command, " ".join(notes)


def _scan(text: str) -> Iterator[tuple[int, str, bool]]:
    """(index, char, outside quotes) for each character, with bash's single/double quote and \\ rules."""
    quote = ""
    escaped = False
    for index, char in enumerate(text):
        outside = not quote and not escaped
        yield index, char, outside
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote and char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char


def _unquoted_text(text: str) -> str:
    return "".join(char if outside else " " for _, char, outside in _scan(text))


def split_comment(line: str) -> tuple[str, str]:
    """``code # note`` -> (code, note); a ``#`` inside quotes or inside a word is code."""
    for index, char, outside in _scan(line):
        if char == "#" and outside and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip(), line[index + 1:].strip()
    return line, ""


def drop_optional(command: str) -> str:
    """Remove ``[...]`` words outside quotes: the command in its default form."""
    out, depth, index = [], 0, 0
    for index, char, outside in _scan(command):
        starts_word = index == 0 or command[index - 1].isspace()
        if outside and char == "[" and (depth or starts_word):
            depth += 1
            continue
        if outside and char == "]" and depth:
            depth -= 1
            continue
        if not depth:
            out.append(char)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def fill(command: str, values: Mapping[str, str]) -> str:
    """Fill ``<name>`` placeholders outside quotes; KeyError names one that has no value."""
    mask = _unquoted_text(command)
    pieces, last = [], 0
    for match in _PLACEHOLDER.finditer(mask):
        pieces += [command[last:match.start()], values[match.group(1)]]
        last = match.end()
    return "".join([*pieces, command[last:]])


def output_pattern(shown: str) -> re.Pattern[str]:
    """A shown output line as a pattern: numbers stand for any number, runs of blanks for any blanks."""
    parts = re.split(r"(\s+|\d+(?:\.\d+)?)", shown.strip())
    regex = "".join(r"\s+" if part.isspace() else r"\d+(?:\.\d+)?" if _NUMBER.fullmatch(part) else re.escape(part)
                    for part in parts if part)
    return re.compile(regex)


def missing_output(shown: tuple[str, ...], actual: str) -> list[str]:
    """The shown lines that do not appear in the actual output, in order (each after the previous)."""
    lines = [line.strip() for line in actual.splitlines()]
    missing, position = [], 0
    for line in filter(str.strip, shown):
        pattern = output_pattern(line)
        found = next((i for i in range(position, len(lines)) if pattern.fullmatch(lines[i])), None)
        if found is None:
            missing.append(line)
        else:
            position = found + 1
    return missing
