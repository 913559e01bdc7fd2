from nos.cfgmgr.port import to_appl


def test_first_sight_injects_portmgrd_defaults():
    assert to_appl({"speed": "400000", "lanes": "0,1,2,3"}, first_sight=True) == {
        "speed": "400000", "lanes": "0,1,2,3", "admin_status": "down", "mtu": "9100"}


def test_configured_values_win_over_defaults_and_null_is_dropped():
    assert to_appl({"mtu": "1500", "admin_status": "up", "NULL": "NULL"}, first_sight=True) == {
        "mtu": "1500", "admin_status": "up"}


def test_later_changes_are_forwarded_as_they_are():
    assert to_appl({"speed": "100000"}, first_sight=False) == {"speed": "100000"}
