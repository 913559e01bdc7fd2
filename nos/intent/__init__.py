"""Intents: one high-level row in CONFIG_DB that a manager expands into SONiC's standard tables.

Each intent package is pure (profiles as data, the intent model, the expansion into a target
configuration, what turning it off restores, a consistency check); the config manager in
``nos.cfgmgr`` and the CLI/REST surfaces do the IO through ``nos.config.transaction``.
"""
