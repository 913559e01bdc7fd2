"""``?wait=applied`` on the CONFIG_DB write routes: answer once the change has reached the ASIC.

Without it (or ``wait=accepted``) a write is answered when CONFIG_DB holds it, as before. With
``wait=applied`` the answer waits until every daemon of the pipeline has processed it
(``nos.config.applied``, up to ``timeout`` seconds); when it has not in time, the change stays in
CONFIG_DB and the answer is 504 naming the hop that lags.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool

from nos.api.rest.errors import ApiError
from nos.api.rest.write_params import Flag
from nos.config.applied import DEFAULT_TIMEOUT_S, NotApplied, wait_applied
from nos.db.connector import Databases

CHOICES = ("accepted", "applied")


class Wait(Flag):
    """The ``wait`` query parameter: True for ``applied``."""

    def read(self, request: Request) -> bool:
        if not request.scope.get("query_string"):
            return False
        value = request.query_params.get(self.name)
        if value is None or value == "accepted":
            return False
        if value == "applied":
            return True
        raise RequestValidationError([{"type": "enum", "loc": ("query", self.name), "input": value,
                                       "msg": f"Input should be {' or '.join(map(repr, CHOICES))}",
                                       "ctx": {"expected": " or ".join(map(repr, CHOICES))}}])

    def parameter(self) -> dict[str, Any]:
        schema = {"type": "string", "enum": list(CHOICES), "default": "accepted", "title": "Wait",
                  "description": self.description}
        return {"name": self.name, "in": "query", "required": False, "schema": schema, "description": self.description}


WAIT = Wait("wait", "accepted (default): answer when CONFIG_DB holds the change; applied: answer once it has "
                    f"reached the ASIC (504 naming the hop that lags after {DEFAULT_TIMEOUT_S:g} s)")


async def until_applied(dbs: Databases, body: dict[str, Any]) -> None:
    """Wait (in the threadpool) until the write answered by ``body`` is applied; 504 when not in time."""
    if not body.get("applied"):
        return
    try:
        await run_in_threadpool(wait_applied, dbs)
    except NotApplied as exc:
        raise ApiError(504, f"the change is in CONFIG_DB, but {exc}") from None
