"""The Redis TCP guard's judgement of commands before AUTH (pure)."""

from __future__ import annotations

import hiredis
import pytest

from nos.runtime.redis_guard import (
    NOAUTH,
    NOAUTH_HELLO,
    OK,
    PREAUTH_ARGS,
    WRONGPASS,
    GuardProtocolError,
    decide,
    parse_command,
)

PASSWORD = b"s3cret"


def test_parse_resp_and_inline_commands():
    packed = hiredis.pack_command((b"AUTH", b"s3cret")) + b"*1\r\n$4\r\nPING\r\n"
    args, used = parse_command(packed)
    assert args == [b"AUTH", b"s3cret"] and parse_command(packed[used:]) == ([b"PING"], 14)
    assert parse_command(b"auth  s3cret\r\nGET x") == ([b"auth", b"s3cret"], 14)
    assert parse_command(b"*2\r\n$4\r\nAUTH\r\n$6\r\ns3c") is None  # incomplete
    assert parse_command(b"GET x") is None
    assert parse_command(b"") is None


@pytest.mark.parametrize("bad", [b"*x\r\n", b"*1\r\n+PING\r\n", b"*1\r\n$999999999\r\n",
                                 b"*1\r\n$4\r\nPINGxx", f"*{PREAUTH_ARGS + 1}\r\n".encode()])
def test_malformed_or_oversized_input_is_refused(bad):
    with pytest.raises(GuardProtocolError):
        parse_command(bad)


def test_auth_forms():
    assert decide([b"AUTH", PASSWORD], PASSWORD).authenticated
    assert decide([b"auth", b"default", PASSWORD], PASSWORD).welcome == OK
    assert decide([b"AUTH", b"wrong"], PASSWORD).reply == WRONGPASS
    assert decide([b"AUTH", b"admin", PASSWORD], PASSWORD).reply == WRONGPASS  # only the default user
    assert not decide([b"AUTH"], PASSWORD).authenticated


def test_everything_else_needs_auth_first():
    for command in ([b"GET", b"x"], [b"SET", b"x", b"1"], [b"SUBSCRIBE", b"c"], [b"PING"], [b"CONFIG", b"GET", b"*"]):
        verdict = decide(command, PASSWORD)
        assert verdict.reply == NOAUTH and not verdict.authenticated
    assert decide([b"QUIT"], PASSWORD).close
    assert decide([], PASSWORD).reply == b""


def test_hello_with_auth_is_passed_on_without_the_password():
    verdict = decide([b"HELLO", b"3", b"AUTH", b"default", PASSWORD, b"SETNAME", b"me"], PASSWORD)
    assert verdict.authenticated and verdict.welcome == b""
    assert verdict.forward == hiredis.pack_command((b"HELLO", b"3", b"SETNAME", b"me"))
    assert decide([b"HELLO", b"3"], PASSWORD).reply == NOAUTH_HELLO
    assert decide([b"HELLO", b"3", b"AUTH", b"default", b"nope"], PASSWORD).reply == WRONGPASS
    assert not decide([b"HELLO", b"3", b"AUTH", b"default"], PASSWORD).authenticated
