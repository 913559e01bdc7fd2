"""SONiC-derived conformance cases against the 32x100G SKU, for every feature implemented so far (the dynamic
buffer model's cases skip here: test_conformance_dynamic_buffers.py boots that model and runs them)."""

from __future__ import annotations

import pytest

from tests.e2e.conformance import FEATURES, RUNNER, run
from tests.e2e.test_conformance_dynamic_buffers import DYNAMIC_CASES  # they run there, on a dynamic-model boot

pytestmark = pytest.mark.e2e


def test_conformance_cases_of_implemented_features_pass(tmp_path):
    assert RUNNER.exists(), f"the conformance runner is read from {RUNNER} (beside the project)"
    doc = run(FEATURES, tmp_path / "sw")
    assert doc.get("summary"), doc.get("output", "")[-3000:]
    not_passed = [f"{c['result']} {c['id']}: {c['reason']}" for c in doc["cases"]
                  if c["result"] != "PASS" and not (c["result"] == "SKIP" and c["id"] in DYNAMIC_CASES)]
    assert not not_passed, "\n".join(not_passed) + "\n" + doc["output"][-2000:]
    assert {c["feature"] for c in doc["cases"]} == set(FEATURES)
