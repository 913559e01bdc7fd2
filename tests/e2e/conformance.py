"""Run ../shared/conformance against a fresh 32x100G switch (the SKU that reproduces SONiC's
virtual-switch baseline): ``python -m tests.e2e.conformance [--feature F ...] [--all] [--derived]
[--slow] [--cases FILE ...] [--id GLOB ...]``.

``--derived`` adds our own cases (``tests/conformance/derived/*.json``: derived from the same upstream
tests in the same format, ids ``NOS-*``) to the public ones, ``--slow`` those that take minutes
(``tests/conformance/slow``); ``--cases`` adds one such file.

``FEATURES`` lists the features this switch implements so far; each issue that adds one adds it
here, and the test suite (tests/e2e/test_conformance.py) requires every case of them to pass.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[3] / "shared"
RUNNER = SHARED / "conformance" / "run.py"
PUBLIC_CASES = SHARED / "conformance" / "cases.json"
DERIVED = Path(__file__).resolve().parents[1] / "conformance" / "derived"
SLOW = DERIVED.parent / "slow"   # derived cases of minutes each (ECMP group exhaustion): by hand, --slow
FEATURES = ("port", "vlan", "lag", "route", "buffer", "qos", "pfc", "wred_ecn", "pfcwd", "mclag")
NOS = [sys.executable, "-m", "nos.cli.main"]


def run(features: tuple[str, ...] | None, run_dir: Path, extra: list[str] | None = None,
        config: Path | None = None) -> dict[str, Any]:
    """Boot a switch in ``run_dir`` (with ``config`` as its startup config when given), run the cases
    (all when ``features`` is None), stop it."""
    boot = ["--config", str(config)] if config is not None else []
    subprocess.run([*NOS, "up", "-d", "--sku", "Force10-S6000", "--run-dir", str(run_dir), "--rest-port", "0",
                    "--redis-port", "0", *boot], check=True, capture_output=True, text=True, timeout=120)
    try:
        endpoints = json.loads((run_dir / "endpoints.json").read_text())
        results = run_dir / "conformance.json"
        argv = [sys.executable, str(RUNNER), "--redis", endpoints["redis"], "--json", str(results), *(extra or [])]
        for feature in features or ():
            argv += ["--feature", feature]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
        doc: dict[str, Any] = json.loads(results.read_text()) if results.exists() else {}
        doc["output"] = proc.stdout + proc.stderr
        return doc
    finally:
        subprocess.run([*NOS, "down", "--run-dir", str(run_dir)], capture_output=True, timeout=60)


def derived_case_files() -> list[Path]:
    return sorted(DERIVED.glob("*.json"))


def case_files_argv(files: list[Path]) -> list[str]:
    """The runner's ``--cases`` arguments: the public file first, then ``files`` (none: the runner's default)."""
    argv: list[str] = []
    for path in [PUBLIC_CASES, *files] if files else []:
        argv += ["--cases", str(path)]
    return argv


def main() -> int:
    parser = argparse.ArgumentParser(prog="conformance")
    parser.add_argument("--feature", action="append", help="feature to run (repeatable)")
    parser.add_argument("--all", action="store_true", help="every case, implemented or not")
    parser.add_argument("-v", action="store_true", help="print every check")
    parser.add_argument("--config", type=Path, help="startup config_db.json for the switch (default: the SKU's)")
    parser.add_argument("--derived", action="store_true", help="add our own derived cases (tests/conformance/derived)")
    parser.add_argument("--slow", action="store_true", help="add our slow derived cases (tests/conformance/slow)")
    parser.add_argument("--cases", action="append", type=Path, default=[], help="add this case file (repeatable)")
    parser.add_argument("--id", action="append", default=[], help="only this case id or glob (repeatable)")
    args = parser.parse_args()
    features = None if args.all else tuple(args.feature or FEATURES)
    extra = ["-v"] if args.v else []
    extra += case_files_argv(args.cases + (derived_case_files() if args.derived else [])
                             + (sorted(SLOW.glob("*.json")) if args.slow else []))
    for pattern in args.id:
        extra += ["--id", pattern]
    with tempfile.TemporaryDirectory(prefix="nos-conformance-") as tmp:
        doc = run(features, Path(tmp), extra, args.config)
    print(doc["output"])
    summary = doc.get("summary", {})
    return 0 if summary and not summary.get("failed") and not summary.get("errors") else 1


if __name__ == "__main__":
    sys.exit(main())
