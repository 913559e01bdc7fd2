"""nos: the shared platform of a SONiC-style switch NOS with a simulated ASIC.

Everything here is shared by the daemons; nothing imports from ``orchagent`` or ``syncd_sim``.

Layout (see README.md, "Architecture"):

* ``nos.schema``   DB ids and separators, table-name constants, typed CONFIG_DB row models.
* ``nos.db``       the one Redis access layer, byte-compatible with swss-common.
* ``nos.daemon``   the one daemon runner: select loop, pending-task merge, retries, timers, signals.
* ``nos.platform`` SKU data (platform.json / hwsku.json) and breakout expansion.
* ``nos.config``   config_db.json files: read, validate, load, reload, save.
* ``nos.cfgmgr``   config managers, CONFIG_DB -> APPL_DB.
* ``nos.runtime``  one switch's processes: embedded Redis, daemons, run directory, readiness.
* ``nos.api``      management surfaces (REST; gNMI later).
* ``nos.cli``      the ``nos`` command.

Rules kept throughout: decide in pure functions, do IO at the edges; data problems are statuses, not
exceptions; daemons talk to each other only through the databases.
"""

__version__ = "0.1.0"
