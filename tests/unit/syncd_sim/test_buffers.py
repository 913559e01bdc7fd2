"""The simulated ASIC's buffer checks on plain attribute maps."""

from __future__ import annotations

from syncd_sim.buffers import pool_problem, profile_create_problem, profile_pool_problem


def test_threshold_mode_needs_its_threshold() -> None:
    mode = "SAI_BUFFER_PROFILE_ATTR_THRESHOLD_MODE"
    assert profile_create_problem({mode: "SAI_BUFFER_PROFILE_THRESHOLD_MODE_DYNAMIC"})
    assert profile_create_problem({mode: "SAI_BUFFER_PROFILE_THRESHOLD_MODE_STATIC",
                                   "SAI_BUFFER_PROFILE_ATTR_SHARED_STATIC_TH": "1"}) is None


def test_reservations_fit_the_pool_and_pools_fit_the_asic() -> None:
    pool = {"SAI_BUFFER_POOL_ATTR_SIZE": "1000", "SAI_BUFFER_POOL_ATTR_XOFF_SIZE": "24"}
    assert profile_pool_problem({"SAI_BUFFER_PROFILE_ATTR_RESERVED_BUFFER_SIZE": "1024"}, pool) is None
    assert "exceeds" in (profile_pool_problem({"SAI_BUFFER_PROFILE_ATTR_XOFF_TH": "1025"}, pool) or "")
    assert pool_problem({"SAI_BUFFER_POOL_ATTR_SIZE": "2048"}, 1024)
    assert pool_problem({"SAI_BUFFER_POOL_ATTR_SIZE": "2048"}, 0) is None
