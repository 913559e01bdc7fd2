"""syncd_sim.pfcwd.step: the detection / restoration state machine of one queue, on plain data."""

from __future__ import annotations

from syncd_sim.pfcwd import RESTORE, STORM, Sample, Timers, Watch, step

POLL = 200_000  # µs
OPER = Watch(status="operational", action="drop", detection_us=400_000, restoration_us=400_000)
STORMED = Watch(status="stormed", action="drop", detection_us=400_000, restoration_us=400_000)


def run(watch: Watch, samples: list[Sample], timers: Timers | None = None) -> tuple[Timers, list[str | None]]:
    timers = timers or Timers()
    events = []
    for sample in samples:
        timers, event = step(watch, timers, sample, POLL)
        events.append(event)
    return timers, events


def test_a_paused_queue_is_stormed_after_the_detection_time_and_the_first_poll_is_a_baseline():
    _, events = run(OPER, [Sample(paused=True)] * 4)
    assert events == [None, None, STORM, None]


def test_an_unpaused_poll_resets_the_detection_time():
    _, events = run(OPER, [Sample(paused=True), Sample(paused=True), Sample(), Sample(paused=True),
                           Sample(paused=True)])
    assert events == [None, None, None, None, STORM]


def test_debug_storm_is_a_storm_whatever_the_counters_say():
    watch = Watch(status="operational", action="forward", detection_us=200_000, debug_storm=True)
    assert run(watch, [Sample(), Sample()])[1] == [None, STORM]


def test_pfc_frames_arriving_while_the_queue_sends_nothing_stall_it():
    samples = [Sample(pfc_rx=0, tx=5), Sample(pfc_rx=10, tx=5), Sample(pfc_rx=20, tx=5)]
    assert run(OPER, samples)[1] == [None, None, STORM]
    moving = [Sample(pfc_rx=0, tx=5), Sample(pfc_rx=10, tx=6), Sample(pfc_rx=20, tx=7)]
    assert run(OPER, moving)[1] == [None, None, None]


def test_a_stormed_queue_is_restored_after_quiet_polls_only():
    timers = Timers(last=Sample(pfc_rx=3))
    _, events = run(STORMED, [Sample(pfc_rx=3), Sample(pfc_rx=4), Sample(pfc_rx=4), Sample(pfc_rx=4)], timers)
    assert events == [None, None, None, RESTORE]   # the PFC RX counter moved on the second poll


def test_a_paused_or_debug_stormed_queue_is_never_quiet():
    timers = Timers(last=Sample())
    assert run(STORMED, [Sample(paused=True)] * 4, timers)[1] == [None] * 4
    debug = Watch(status="stormed", action="drop", detection_us=400_000, restoration_us=200_000, debug_storm=True)
    assert run(debug, [Sample()] * 3, timers)[1] == [None] * 3


def test_alert_restores_as_soon_as_the_condition_clears_and_ignores_the_restoration_time():
    watch = Watch(status="stormed", action="alert", detection_us=200_000, restoration_us=10_000_000)
    assert run(watch, [Sample(paused=True), Sample(paused=True), Sample()])[1] == [None, STORM, RESTORE]


def test_no_restoration_time_means_no_restore_and_big_red_switch_or_no_registration_means_nothing():
    no_restore = Watch(status="stormed", action="drop", detection_us=200_000)
    assert run(no_restore, [Sample()] * 5)[1] == [None] * 5
    brs = Watch(status="operational", action="drop", detection_us=200_000, big_red_switch=True, debug_storm=True)
    assert run(brs, [Sample()] * 5)[1] == [None] * 5
    assert run(Watch(debug_storm=True), [Sample()] * 5)[1] == [None] * 5


def test_watch_from_the_counters_hash_values():
    watch = Watch.from_values(["stormed", "forward", "200000", "", None, "enabled"])
    assert watch == Watch("stormed", "forward", 200_000, None, False, True)


def test_watch_times_int_cannot_read_are_absent() -> None:
    from syncd_sim.pfcwd import Watch

    watch = Watch.from_values(["operational", "drop", "²", "٣", None, None])  # '²'.isdigit() and int('²') raises
    assert watch.detection_us is None and watch.restoration_us is None
