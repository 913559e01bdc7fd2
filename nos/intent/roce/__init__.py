"""The RoCE intent: ``ROCE|global`` in CONFIG_DB, expanded into SONiC's buffer, QoS, PFC and PFC
watchdog tables for every port, and a check that the path is lossless end to end.

* ``profiles``: the nvidia and sonic profiles, as data;
* ``model``: ``ROCE|global`` resolved against its profile (:func:`~nos.intent.roce.model.resolve`);
* ``expand``: intent + CONFIG_DB + SKU facts -> the rows the intent wants;
* ``saved``: the pre-intent rows (``NOS_ROCE_SAVED``) and what turning off restores;
* ``check``: the lossless check;
* :func:`plan` here: the whole target configuration for whatever ``ROCE|global`` now says. Every
  surface applies it through ``nos.config.transaction.commit``: the CLI and REST in the same
  transaction that writes the row, the manager (``nos.cfgmgr.roce``) for every other writer.
"""

from __future__ import annotations

from nos.intent.roce.expand import expand
from nos.intent.roce.facts import RoceFacts, facts_for
from nos.intent.roce.model import IntentError, RoceIntent, resolve
from nos.intent.roce.saved import apply_desired, decode, restore
from nos.schema.config import Config
from nos.schema.config.roce import CFG_ROCE_TABLE_NAME, ROCE_KEY


def intent_of(config: Config) -> RoceIntent | None:
    """The enabled intent ``config`` holds (None when there is none or it is disabled); raises
    IntentError when the row is refused."""
    row = config.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY)
    if row is None:
        return None
    intent = resolve(row)
    return intent if intent.enabled else None


def plan(config: Config, facts: RoceFacts | None = None) -> Config:
    """The whole target configuration for ``config``'s ``ROCE|global`` (pure but for reading the SKU
    facts when not given); raises IntentError naming table, key and field when it is refused."""
    intent = intent_of(config)
    if intent is None:
        return restore(config)
    facts = facts if facts is not None else facts_for(config)
    return apply_desired(config, expand(intent, config, facts, decode(config)))


__all__ = ["IntentError", "RoceFacts", "RoceIntent", "facts_for", "intent_of", "plan", "resolve"]
