"""ROCE|global resolved over its profile; every refusal names table, key, field and value."""

from __future__ import annotations

import pytest

from nos.intent.roce.model import IntentError, default_intent, resolve


def test_nvidia_is_the_default_profile() -> None:
    intent = resolve({})
    assert (intent.profile, intent.mode, intent.roce_dscp, intent.roce_priority) == ("nvidia", "lossless", (26,), (3,))
    assert (intent.cnp_dscp, intent.cnp_tc, intent.ecn_min, intent.ecn_max, intent.ecn_probability) == \
        (48, 6, 150000, 1500000, 100)
    assert (intent.pfcwd, intent.pfcwd_detection_ms, intent.pfcwd_restoration_ms, intent.pfcwd_action) == \
        (True, 200, 200, "drop")
    assert intent.ports is None and intent.cable_length is None


def test_sonic_profile_and_overrides() -> None:
    intent = resolve({"profile": "sonic", "pfcwd": "off", "ports": "Ethernet0,Ethernet4", "mode": "lossy"})
    assert intent.dscp_priorities() == {3: 3, 4: 4}
    assert (intent.ecn_min, intent.ecn_max, intent.ecn_probability) == (1048576, 2097152, 5)
    assert not intent.pfcwd and not intent.lossless and intent.ports == ("Ethernet0", "Ethernet4")
    assert default_intent("sonic").roce_weight == 15
    assert resolve({"roce_dscp": "24,25,26", "roce_priority": "3"}).dscp_priorities() == {24: 3, 25: 3, 26: 3}


@pytest.mark.parametrize(("row", "field", "value", "reason"), [
    ({"roce_dscp": "64"}, "roce_dscp", "64", "DSCPs 0..63"),
    ({"mode": "lossles"}, "mode", "lossles", "one of lossless, lossy"),
    ({"pfcwd": "yes"}, "pfcwd", "yes", "one of on, off"),
    ({"cable_length": "5"}, "cable_length", "5", "cable length"),
    ({"ecn_probability": "101"}, "ecn_probability", "101", "0..100"),
    ({"pfcwd_detection_ms": "50"}, "pfcwd_detection_ms", "50", "100..5000"),
    ({"cnp_dscp": "26"}, "cnp_dscp", "26", "also a RoCE DSCP"),
    ({"cnp_tc": "3"}, "cnp_tc", "3", "also a RoCE priority"),
    ({"ecn_min": "2000", "ecn_max": "1000"}, "ecn_max", "1000", "ecn_min"),
    ({"roce_dscp": "3,4,5", "roce_priority": "3,4"}, "roce_priority", "3,4", "one per RoCE DSCP"),
    ({"roce_dscp": "26,26"}, "roce_dscp", "26,26", "twice"),
    ({"roce_priority": "0"}, "roce_priority", "0", "default (lossy) traffic"),
    ({"ports": "all,Ethernet0"}, "ports", "all,Ethernet0", "not both"),
    ({"ecn_mn": "1"}, "ecn_mn", "1", "not a ROCE field"),
])
def test_refusals_name_table_key_field_and_value(row: dict[str, str], field: str, value: str, reason: str) -> None:
    with pytest.raises(IntentError) as caught:
        resolve(row)
    (error,) = caught.value.errors
    assert (error.table, error.key, error.field, error.value) == ("ROCE", "global", field, value)
    assert reason in error.reason


def test_every_bad_field_is_named_at_once() -> None:
    with pytest.raises(IntentError) as caught:
        resolve({"mode": "x", "profile": "y", "cnp_tc": "9"})
    assert sorted(e.field or "" for e in caught.value.errors) == ["cnp_tc", "mode", "profile"]
