"""The fork server's pure parts: which commands it runs and how a forked child's title reads back."""

from __future__ import annotations

from nos.runtime.forkserver import FORKED_MODULES, argv_of, module_of


def test_module_of_a_python_m_command():
    assert module_of(["/usr/bin/python3", "-m", "orchagent", "--redis", "unix:///r.sock"]) == "orchagent"
    assert module_of(["redis-server", "--port", "0"]) is None
    assert module_of(["python"]) is None


def test_a_forked_title_splits_into_words_and_an_exec_command_line_stays():
    title = ["/v/bin/python3 -m nos.api.rest --redis unix:///tmp/r.sock --fd 9", "", "", ""]
    assert argv_of(title) == ["/v/bin/python3", "-m", "nos.api.rest", "--redis", "unix:///tmp/r.sock", "--fd", "9"]
    exec_line = ["/v/bin/python3", "-m", "orchagent", "--redis", "unix:///tmp/a b/r.sock"]
    assert argv_of(exec_line) == exec_line
    assert argv_of([]) == []


def test_the_guard_is_not_forked():
    """Redis's TCP guard stays an exec'd child: its imports cost little (0.07 s)."""
    assert "nos.runtime.redis_guard" not in FORKED_MODULES
    assert {"orchagent", "syncd_sim", "nos.cfgmgr", "nos.api.rest", "nos.api.gnmi", "iccpd"} == FORKED_MODULES
