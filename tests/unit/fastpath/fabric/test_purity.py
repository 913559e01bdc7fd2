"""fastpath.fabric is pure: importing it loads numpy, fastpath and the standard library only."""

from __future__ import annotations

import ast
import subprocess
import sys


def test_the_fabric_package_loads_no_daemon_nor_nos_module() -> None:
    code = ("import sys, fastpath.fabric, fastpath.fabric.topo, fastpath.fabric.hotspots; "
            "print(sorted({m.split('.')[0] for m in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(ast.literal_eval(out))
    assert not loaded & {"nos", "orchagent", "syncd_sim", "redis", "yaml", "fastapi"}
    assert {"numpy", "fastpath"} <= loaded
