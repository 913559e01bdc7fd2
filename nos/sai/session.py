"""Which answer belongs to which request: the session between the sairedis client and syncd_sim.

sairedis answers synchronous requests on GETRESPONSE in the order they were made, and nothing in an
answer names its request; a client that starts while answers meant for a predecessor are still queued
(or still coming: syncd answers every request it was sent, and a killed client's last requests are
answered after it died) would take them for its own. So each client process opens a session first: a
``notify`` on the switch with ``NOS_SESSION_BEGIN=<token>``. syncd_sim numbers the requests of the
current session (the session's own notify is 0, then 1, 2, ...) and appends ``NOS_REQUEST=<token>:<n>``
as the last field of every answer. The client takes only answers of its own token, each by its number;
whatever else it reads is a predecessor's, and dropped. Requests stay byte-compatible with sairedis;
the answers carry one field more (our own; clients strip it).

``<token>:lost`` answers every request of a session whose state syncd_sim lost when it was restarted
(the temporary view of an INIT_VIEW in progress): the client must start over (orchagent exits and is
restarted, and reconciles).
"""

from __future__ import annotations

from nos.db.keyops import FieldValues

SESSION_ATTR = "NOS_SESSION_BEGIN"
TAG_FIELD = "NOS_REQUEST"
LOST = -1


def tag(session: str, seq: int) -> tuple[str, str]:
    """The field syncd_sim appends to the answer of request ``seq`` of ``session``."""
    return (TAG_FIELD, f"{session}:{'lost' if seq == LOST else seq}")


def split_tag(fvs: FieldValues) -> tuple[FieldValues, str, int | None]:
    """(the answer's own fields, session, request number) of an answer; number None if it has no tag."""
    if not fvs or fvs[-1][0] != TAG_FIELD:
        return fvs, "", None
    session, _, seq = fvs[-1][1].rpartition(":")
    if seq == "lost":
        return fvs[:-1], session, LOST
    try:
        return fvs[:-1], session, int(seq)
    except ValueError:
        return fvs[:-1], "", None
