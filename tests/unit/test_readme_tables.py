"""README.md keeps one table: DB table -> writing module(s) -> reading module(s) (STYLE.md 1).

It is derived from the ``CONSUMES`` / ``READS`` / ``PRODUCES`` declarations of every config manager and orch;
this test fails when the README's table no longer says what the code declares.
``python -m tests.unit.test_readme_tables`` prints the table to paste.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import defaultdict
from pathlib import Path

import nos.cfgmgr
import orchagent.orchs

README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN, END = "<!-- tables:begin -->", "<!-- tables:end -->"


EXTRA = ("orchagent.main", "orchagent.sairedis", "syncd_sim.syncd", "syncd_sim.counters", "syncd_sim.pfcwd",
         "syncd_sim.fastpath_shell", "nos.lab.supervisor", "iccpd.daemon")


def modules() -> list[str]:
    names = [f"{pkg.__name__}.{info.name}" for pkg in (nos.cfgmgr, orchagent.orchs)
             for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_")]
    return names + list(EXTRA)


def declarations() -> dict[tuple[str, str], tuple[set[str], set[str]]]:
    """(db, table) -> (writers, readers), from module- and orch-class-level declarations."""
    found: dict[tuple[str, str], tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    for name in modules():
        module = importlib.import_module(name)
        owners = [module, getattr(module, "ORCH", None)]
        for owner in filter(None, owners):
            for db, table in getattr(owner, "PRODUCES", None) or ():
                found[(db, table)][0].add(name)
            for attr in ("CONSUMES", "READS"):   # READS: read other than by an orch consumer
                for db, table in getattr(owner, attr, None) or ():
                    found[(db, table)][1].add(name)
    return found


def render() -> str:
    lines = ["| DB table | written by | read by |", "|---|---|---|"]
    for (db, table), (writers, readers) in sorted(declarations().items()):
        lines.append(f"| {db} `{table}` | {', '.join(sorted(writers)) or '(users, CLI, REST)'} | "
                     f"{', '.join(sorted(readers)) or '-'} |")
    return "\n".join(lines)


def test_readme_table_matches_the_declarations() -> None:
    text = README.read_text()
    assert BEGIN in text and END in text, f"README.md needs the markers {BEGIN} / {END}"
    current = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert current == render(), "README table is stale: run python -m tests.unit.test_readme_tables"


if __name__ == "__main__":
    print(render())
