"""The REST body limits' settings: sizes as people write them, the server's flags and environment."""

from __future__ import annotations

import pytest

from nos.api.rest.__main__ import parse_args
from nos.api.rest.limits import MAX_BODY, BodyLimits, describe, parse_size


@pytest.mark.parametrize(("text", "size"), [("16777216", 16 << 20), ("16M", 16 << 20), ("16MiB", 16 << 20),
                                            ("512k", 512 << 10), ("1G", 1 << 30), (" 64 ", 64)])
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "16 MB", "-1", "1.5M", "M", "16T"])
def test_what_is_not_a_size(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


def test_describe() -> None:
    assert describe(MAX_BODY) == "16777216 bytes (16 MiB)" and describe(1000) == "1000 bytes"


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        BodyLimits(0)


def test_the_defaults_flags_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    args = parse_args(["--redis", "unix:///x"])
    assert (args.max_body, args.max_depth) == (16 << 20, 64)
    args = parse_args(["--redis", "unix:///x", "--max-body", "64M", "--max-depth", "10"])
    assert (args.max_body, args.max_depth) == (64 << 20, 10)
    monkeypatch.setenv("NOS_REST_MAX_BODY", "1M")
    monkeypatch.setenv("NOS_REST_MAX_DEPTH", "8")
    assert (parse_args([]).max_body, parse_args([]).max_depth) == (1 << 20, 8)


@pytest.mark.parametrize("flags", [["--max-body", "lots"], ["--max-body", "0"], ["--max-depth", "0"]])
def test_bad_flags_are_refused(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(flags)
    assert exit_.value.code == 2 and "--max-" in capsys.readouterr().err
