"""portsyncd/portmgrd translation: defaults on first sight, deferral, the LAG member's mtu, PortInitDone."""

from nos.cfgmgr.port import PortInitTracker, lag_members, plan_set, to_appl


def test_first_sight_injects_portmgrd_defaults():
    assert to_appl({"speed": "400000", "lanes": "0,1,2,3"}, first_sight=True) == {
        "speed": "400000", "lanes": "0,1,2,3", "admin_status": "down", "mtu": "9100"}


def test_configured_values_win_over_defaults_and_null_is_dropped():
    assert to_appl({"mtu": "1500", "admin_status": "up", "NULL": "NULL"}, first_sight=True) == {
        "mtu": "1500", "admin_status": "up"}


def test_later_changes_are_forwarded_as_they_are():
    assert to_appl({"speed": "100000"}, first_sight=False) == {"speed": "100000"}


def test_every_config_field_is_forwarded_unchanged():  # PORT-003, PORT-013, PORT-016
    fields = {"tpid": "0x9200", "link_event_damping_algorithm": "aied", "max_suppress_time": "54000",
              "decay_half_life": "45000", "suppress_threshold": "1650", "reuse_threshold": "1500",
              "flap_penalty": "1000", "pt_interface_id": "129", "pt_timestamp_template": "template2"}
    out, retry = plan_set(fields, first_sight=False, ready=True, lag_member=False)
    assert (out, retry) == (fields, False)


def test_first_sight_of_a_port_without_netdev_writes_everything_then_retries():
    out, retry = plan_set({"lanes": "0", "speed": "400000"}, first_sight=True, ready=False, lag_member=False)
    assert out == {"lanes": "0", "speed": "400000", "admin_status": "down", "mtu": "9100"}
    assert retry


def test_a_change_to_a_known_port_without_netdev_is_deferred():
    assert plan_set({"mtu": "1500"}, first_sight=False, ready=False, lag_member=False) == ({}, True)


def test_the_kernel_refuses_a_lag_members_mtu_but_admin_status_goes_through():
    out, retry = plan_set({"mtu": "9100", "admin_status": "up", "speed": "400000"},
                          first_sight=False, ready=True, lag_member=True)
    assert (out, retry) == ({"admin_status": "up", "speed": "400000"}, False)


def test_lag_members_come_from_portchannel_member_keys():
    assert lag_members(["PortChannel1|Ethernet0", "PortChannel2|Ethernet4", "junk"]) == {"Ethernet0", "Ethernet4"}


def test_port_init_done_is_due_once_every_boot_port_is_gone_and_only_once():
    tracker = PortInitTracker({"Ethernet0", "Ethernet4"}, already_done=False)
    assert not tracker.port_gone("Ethernet0")
    assert not tracker.port_gone("Ethernet0")
    assert tracker.port_gone("Ethernet4")
    tracker.done = True
    assert not tracker.port_gone("Ethernet8")


def test_no_boot_ports_means_port_init_done_at_once_unless_already_written():
    assert PortInitTracker(set(), already_done=False).due()
    assert not PortInitTracker(set(), already_done=True).due()
