"""Config managers: CONFIG_DB -> APPL_DB, one module per feature, all in one daemon (``cfgmgrd``).

Each module declares ``CONSUMES`` and ``PRODUCES`` (db, table) pairs and exposes a pure
``to_appl`` translation; the manager class is the thin IO shell around it.
"""
