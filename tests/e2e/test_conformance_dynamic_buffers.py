"""The buffer cases of ../shared/conformance against the 32x100G SKU booted in SONiC's dynamic buffer model
(``nos.platform.dynamic_buffers``): every case that is not skipped passes, and the dynamic ones run."""

from __future__ import annotations

import pytest

from nos.platform.defaults import config_db_to_json
from nos.platform.dynamic_buffers import dynamic_config
from nos.platform.sku import load_sku
from tests.e2e.conformance import DERIVED, RUNNER, case_files_argv, run

pytestmark = pytest.mark.e2e

# the public dynamic cases and our own (tests/conformance/derived/buffer.json)
DYNAMIC_CASES = {"BUF-012", "BUF-013", "BUF-015", "BUF-016", *(f"NOS-BUF-{n:03d}" for n in range(12, 20))}


def test_buffer_cases_pass_in_the_dynamic_model(tmp_path):
    assert RUNNER.exists(), f"the conformance runner is read from {RUNNER} (beside the project)"
    config = tmp_path / "dynamic.json"
    config.write_text(config_db_to_json(dynamic_config(load_sku("Force10-S6000").default_config())))
    doc = run(("buffer",), tmp_path / "sw", case_files_argv([DERIVED / "buffer.json"]), config=config)
    assert doc.get("summary"), doc.get("output", "")[-3000:]
    failed = [f"{c['result']} {c['id']}: {c['reason']}" for c in doc["cases"] if c["result"] not in ("PASS", "SKIP")]
    assert not failed, "\n".join(failed) + "\n" + doc["output"][-2000:]
    ran = {c["id"] for c in doc["cases"] if c["result"] == "PASS"}
    assert DYNAMIC_CASES <= ran, doc["output"][-3000:]
