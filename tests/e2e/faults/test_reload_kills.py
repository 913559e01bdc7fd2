"""A daemon killed while a config reload is being applied: the switch converges to exactly what a switch
that took the same reload without a fault holds (a manager's stale APPL_DB rows are swept, a temporary
view replaces the ASIC's, a syncd batch is done again)."""

from __future__ import annotations

import copy
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import RunningSwitch, nos, start_switch
from tests.e2e.faults.normalise import differences, normal_form, read_asic
from tests.e2e.faults.workload import daemon_pid, wait

pytestmark = pytest.mark.e2e

SETTLE_S = 1.5  # ASIC_DB unchanged this long: the pipeline is done with the reload


def with_vlans(config: dict, vids: range, ports: range) -> dict:
    out = copy.deepcopy(config)
    for vid, index in zip(vids, ports, strict=False):
        port = f"Ethernet{4 * index}"
        out.setdefault("VLAN", {})[f"Vlan{vid}"] = {"vlanid": str(vid)}
        out.setdefault("VLAN_MEMBER", {})[f"Vlan{vid}|{port}"] = {"tagging_mode": "tagged"}
        out.setdefault("VLAN_INTERFACE", {})[f"Vlan{vid}"] = {}
        out["VLAN_INTERFACE"][f"Vlan{vid}|10.{vid}.0.1/24"] = {}
    return out


def settled(switch: RunningSwitch) -> None:
    asic = switch.db(1)
    last, since, deadline = None, time.monotonic(), time.monotonic() + 120
    while time.monotonic() - since < SETTLE_S:
        assert time.monotonic() < deadline, "the switch never settled"
        now = (asic.hgetall("NOS_SYNCD_OBJECT_COUNTS"), asic.llen("ASIC_STATE_KEY_VALUE_OP_QUEUE"),
               [switch.db(0).scard(f"{t}_KEY_SET") for t in ("VLAN_TABLE", "VLAN_MEMBER_TABLE", "INTF_TABLE")])
        if now != last:
            last, since = now, time.monotonic()
        time.sleep(0.05)


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, object]]:
    """(first config, second config, the ASIC after reloading the second without a fault)."""
    tmp = tmp_path_factory.mktemp("reload")
    sw = start_switch(tmp / "ref")
    try:
        saved = tmp / "base.json"
        sw.nos("config", "save", str(saved))
        base = json.loads(saved.read_text())
        first, second = tmp / "first.json", tmp / "second.json"
        first.write_text(json.dumps(with_vlans(base, range(100, 140), range(0, 40))))
        second.write_text(json.dumps(with_vlans(base, range(120, 160), range(20, 60))))
        sw.nos("config", "reload", str(first))
        settled(sw)
        sw.nos("config", "reload", str(second))
        settled(sw)
        yield first, second, normal_form(read_asic(sw.db(1)))
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)


# (victim, seconds after the reload; None: stopped before it, so that it never sees the change, then killed)
@pytest.mark.parametrize(("victim", "delay"), [("cfgmgrd", None), ("cfgmgrd", 0.05), ("orchagent", None),
                                               ("orchagent", 0.3), ("syncd", 0.1)])
def test_a_daemon_killed_during_a_config_reload_converges_to_the_faultless_asic(tmp_path, configs, victim, delay):
    first, second, reference = configs
    sw = start_switch(tmp_path / "sw")
    try:
        sw.nos("config", "reload", str(first))
        settled(sw)
        old = daemon_pid(sw, victim)
        if delay is None:
            os.kill(old, signal.SIGSTOP)
        sw.nos("config", "--no-wait", "reload", str(second))  # the victim may be stopped: do not wait for it
        time.sleep(delay or 0.5)  # a moment into the pipeline's work on the reload
        os.kill(old, signal.SIGKILL)
        wait(lambda: daemon_pid(sw, victim) not in (0, old)
             and sw.db(6).hget(f"NOS_DAEMON_TABLE|{victim}", "status") == "running", f"{victim} back", 60)
        settled(sw)
        got = normal_form(read_asic(sw.db(1)))
        assert got == reference, "\n".join(differences(got, reference))
    finally:
        sw.close()
        nos("down", "--run-dir", str(sw.run_dir), check=False)
