"""What each ``nos config`` command does to the configuration document, as pure functions.

Every function takes the running configuration as a config_db.json document (a private copy the
transaction hands it), changes it the way SONiC's ``config`` command changes CONFIG_DB (same tables,
keys and fields), and returns it; the transaction (``nos.config.transaction.commit``) then validates
the whole result and applies it atomically. Before writing, each function makes the checks SONiC's
click command makes (its ``ctx.fail`` messages) and raises :class:`Refused` with that message; checks
the schema already makes (value ranges, references to ports) are left to the validation, which names
table, key, field and reason.
"""
