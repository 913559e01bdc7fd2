"""Quantities in scenarios: decimal and binary sizes, times, rates, lengths; bad text is refused."""

from __future__ import annotations

import pytest

from nos.traffic.units import format_rate, format_size, format_time, parse_length, parse_rate, parse_size, parse_time


@pytest.mark.parametrize(("text", "expected"), [
    ("1MB", 1_000_000), ("64KiB", 65_536), ("4096", 4096), (4096, 4096), ("1.5kB", 1500), ("2GiB", 2 * 1024 ** 3),
    ("10 MB", 10_000_000), ("3B", 3)])
def test_sizes(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("100us", 100e-6), ("100µs", 100e-6), ("20ms", 0.02), ("500ns", 500e-9), ("1s", 1.0), ("2", 2.0), (0.5, 0.5)])
def test_times(text: str | float, expected: float) -> None:
    assert parse_time(text) == expected  # exact: the scale's binary noise is rounded away


@pytest.mark.parametrize(("text", "expected"), [
    ("100G", 100e9), ("25Gbps", 25e9), ("400Gb/s", 400e9), ("1.5M", 1.5e6), ("1000", 1000.0)])
def test_rates(text: str, expected: float) -> None:
    assert parse_rate(text) == expected


def test_lengths() -> None:
    assert parse_length("5m") == 5.0
    assert parse_length("0.3km") == 300.0


@pytest.mark.parametrize(("parse", "text", "message"), [
    (parse_size, "1XB", "unknown size unit 'XB'"), (parse_size, "1.5B", "whole number of bytes"),
    (parse_size, "abc", "is not a size"), (parse_size, True, "boolean"), (parse_time, "5 parsecs", "unknown time"),
    (parse_rate, "fast", "is not a rate"), (parse_length, "5ft", "unknown length unit")])
def test_bad_quantities_say_what_was_expected(parse, text, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse(text)


def test_formats() -> None:
    assert format_size(1_500_000) == "1.5 MB"
    assert format_time(1.25e-3) == "1.25 ms"
    assert format_time(float("nan")) == "-"
    assert format_rate(3.9e11) == "390 Gb/s"
