"""SONiC's vocabulary: DB ids and separators, table names, and typed CONFIG_DB row models.

Table names and field names are spelled exactly as in SONiC (swss-common ``schema.h``); other
modules use these constants instead of string literals.
"""
