"""SAI vocabulary shared by orchagent (the sairedis client) and syncd_sim (the SAI implementation):
object types and their numbers, the OID layout, statuses, attribute metadata, value encodings and
the ASIC_STATE key/field forms. The two daemons meet only here and in the databases.
"""
