"""orchagent: APPL_DB (and some CONFIG_DB tables) -> SAI operations on ASIC_DB.

One orch per feature in ``orchagent.orchs``; each parses rows into entries (pure), plans SAI
operations (pure), and hands them to the sairedis client (``orchagent.sairedis``), the only ASIC_DB
writer. Shared state between orchs goes through ``orchagent.core`` (the interface registry, the
event bus, the switch context), injected in ``orchagent.main``; there are no module globals.
"""
