"""vrfmgrd translation: forwarded fields, the empty-VRF placeholder, name and value checks."""

from __future__ import annotations

import pytest

from nos.cfgmgr.vrf import vni_of, vrf_to_appl


def test_a_vrf_without_fields_is_written_as_null():  # ROUTE-004 creates Vrf_0 with NULL
    assert vrf_to_appl("Vrf_0", {"NULL": "NULL"}) == {"NULL": "NULL"}
    assert vrf_to_appl("Vrf_0", {}) == {"NULL": "NULL"}


def test_forwarded_fields_only():
    fields = {"NULL": "NULL", "vni": "10000", "fallback": "true", "rd": "1:1", "v4": "true"}
    assert vrf_to_appl("VrfRed", fields) == {"v4": "true", "fallback": "true", "vni": "10000"}


def test_metadata_only_row_keeps_the_placeholder():
    assert vrf_to_appl("VrfRed", {"rd": "1:1"}) == {"NULL": "NULL"}


@pytest.mark.parametrize(("name", "fields", "match"), [
    ("Red", {}, "Vrf"),
    ("Vrf", {}, "Vrf"),
    ("VrfTooLongForKernel", {}, "Vrf"),
    ("VrfRed", {"vni": "16777216"}, "vni"),
    ("VrfRed", {"fallback": "yes"}, "fallback"),
    ("VrfRed", {"src_mac": "not-a-mac"}, "src_mac"),
])
def test_bad_vrfs_are_refused(name, fields, match):
    with pytest.raises(ValueError, match=match):
        vrf_to_appl(name, fields)


def test_vni_of():
    assert vni_of({"NULL": "NULL"}) == 0
    assert vni_of({"vni": "100"}) == 100
