"""Package boundaries (STYLE.md 1): nos and fastpath import no daemon package; orchagent, syncd_sim and iccpd never
import each other. They meet only in the databases, through nos.sai and nos.schema."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {
    "nos": {"orchagent", "syncd_sim", "iccpd"},
    "orchagent": {"syncd_sim", "iccpd"},
    "syncd_sim": {"orchagent", "iccpd"},
    "iccpd": {"orchagent", "syncd_sim", "fastpath"},
    "fastpath": {"orchagent", "syncd_sim", "iccpd"},
}


def imported_top_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_does_not_import_across_the_boundary(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, package
    offenders = {str(f.relative_to(ROOT)): sorted(imported_top_packages(f) & FORBIDDEN[package]) for f in files}
    assert {f: bad for f, bad in offenders.items() if bad} == {}


def test_the_walker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import orchagent.main\nfrom syncd_sim import objects\nfrom . import local\n")
    assert imported_top_packages(sample) == {"orchagent", "syncd_sim"}
