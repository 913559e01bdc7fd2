"""The switch's Redis, kept: started, watched, and after it dies started again with CONFIG_DB put back.

Embedded Redis (``nos up``): when redis-server exits (killed, crashed), it is started again on the same
unix socket path (staged first, see ``RedisServer.start``), CONFIG_DB is written back from the journal
(``config_journal``) before the socket is renamed into place, and the journal follows the new server.
The other databases start empty, as on a cold boot: the supervisor then restarts the pipeline's
daemons, which rebuild APPL_DB, ASIC_DB and STATE_DB from CONFIG_DB. A server that cannot be started
is tried again with the children's back-off.

An external Redis (``nos up --redis URL``, docker-compose's database container) is not ours to
restart: when the journal's subscription breaks, the keeper waits until the server answers again;
if it came back without CONFIG_DB (a restarted container), CONFIG_DB is written back the same way,
else only the journal resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import redis

from nos.runtime.children import backoff_delay, exit_cause
from nos.runtime.config_journal import ConfigJournal, journal_client, restore
from nos.runtime.journal_files import JournalFiles
from nos.runtime.redis_server import RedisServer, RedisStartError
from nos.runtime.rundir import RunDir
from nos.schema.dbconfig import default_db_config
from nos.schema.tables import CONFIG_DB_GENERATION_KEY

NON_CONFIG_DBS = ("APPL_DB", "ASIC_DB", "COUNTERS_DB", "FLEX_COUNTER_DB", "STATE_DB", "APPL_STATE_DB")
RETRY_MAX_S = 5.0  # between tries to bring Redis back (an external one is only pinged)
JOURNAL_DRAIN_S = 2.0  # how long to let the journal read what Redis wrote before it died

Event = Callable[[str, str], None]


@dataclass(frozen=True)
class Recovery:
    """What a recovery did."""

    restored_keys: int        # CONFIG_DB keys written back (0: CONFIG_DB was still there)
    generation: str           # CONFIG_DB's generation after it
    seconds: float            # from noticing the loss to the server answering with CONFIG_DB back
    cold: bool                # the other databases are empty: the pipeline must be restarted


@dataclass
class RedisKeeper:
    run: RunDir
    external_url: str | None = None
    event: Event = lambda kind, message: None  # noqa: E731
    server: RedisServer | None = None
    journal: ConfigJournal | None = None
    restarts: int = 0
    last_exit: str = ""
    last_exit_time: float = 0.0
    started: float = 0.0           # epoch of the last start (embedded) or recovery
    lost_at: float | None = None   # monotonic: when the loss was noticed (None: Redis is fine)
    _failures: int = 0
    _next_try: float = 0.0

    # -- start and stop --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The URL every client of the switch uses."""
        if self.external_url is not None:
            return self.external_url
        assert self.server is not None
        return self.server.url

    def _listen_url(self) -> str:
        return self.external_url if self.external_url is not None else self.server.listen_url  # type: ignore[union-attr]

    def start_server(self) -> None:
        """Start the embedded server (unix socket only: TCP is the guard's)."""
        self.server = RedisServer(self.run.path)
        self.server.start()
        self.started = time.time()

    def start_journal(self) -> None:
        """Follow CONFIG_DB from now on (after the startup config is loaded)."""
        self.journal = ConfigJournal(JournalFiles(self.run.path), self._listen_url)
        self.journal.start()

    def stop(self) -> None:
        if self.journal is not None:
            self.journal.stop()
            self.journal.remove_files()
        if self.server is not None:
            self.server.stop()

    # -- watching --------------------------------------------------------------------------------
    @property
    def down(self) -> bool:
        return self.lost_at is not None

    def check(self) -> bool:
        """Whether Redis was just found lost (the caller then holds its daemons and calls ``recover``)."""
        if self.lost_at is not None:
            return False
        cause = self._server_exit()
        if cause is None and self.journal is not None and self.journal.lost.is_set():
            cause = self._journal_broke()
        if cause is None:
            return False
        self.lost_at = time.monotonic()
        self.last_exit, self.last_exit_time = cause, time.time()
        self.event("redis", f"Redis {cause}; bringing it back (the daemons wait)")
        return True

    def _server_exit(self) -> str | None:
        code = self.server.exit_status() if self.server is not None else None
        return None if code is None else exit_cause(code, uses_redis=False)

    def _journal_broke(self) -> str | None:
        """The journal's subscription broke: resume it if Redis still holds CONFIG_DB, else a loss."""
        assert self.journal is not None
        try:
            client = journal_client(self._listen_url())
            try:
                intact = bool(client.exists(CONFIG_DB_GENERATION_KEY))
            finally:
                client.close()
            if not intact:
                return "came back without CONFIG_DB"
            self.journal.start()
        except (redis.RedisError, OSError):
            return "stopped answering"
        self.event("journal", "the CONFIG_DB journal's subscription broke; resumed it")
        return None

    def recover(self) -> Recovery | None:
        """Bring Redis back with CONFIG_DB; None while that is not possible yet (try again later)."""
        now = time.monotonic()
        if self.lost_at is None or now < self._next_try:
            return None
        if self.journal is not None:
            self.journal.lost.wait(JOURNAL_DRAIN_S)  # it has read what Redis wrote before it went
        try:
            cold, restored, generation = self._bring_back()
        except (RedisStartError, redis.RedisError, OSError) as exc:
            delay = min(backoff_delay(self._failures), RETRY_MAX_S)
            self._failures += 1
            self._next_try = now + delay
            self.event("redis", f"Redis not back yet ({exc}); trying again in {delay:.0f}s")
            return None
        result = Recovery(restored, generation, time.monotonic() - self.lost_at, cold)
        self.lost_at, self._failures = None, 0
        self.restarts += 1
        self.started = time.time()
        return result

    def _bring_back(self) -> tuple[bool, int, str]:
        """Restart (embedded, when it exited) or reach the server and put CONFIG_DB back if it is gone.
        Returns (CONFIG_DB was gone: the pipeline needs a cold restart, keys restored, generation)."""
        assert self.journal is not None
        if self.server is not None and self.server.exit_status() is not None:
            self.server.start(staged=True)
        url = self._listen_url()
        client = journal_client(url)
        try:
            client.ping()
            cold = not client.exists(CONFIG_DB_GENERATION_KEY)
            restored = 0
            if cold:
                _flush_others(url)
                restored = restore(client, self.journal.state())
            raw = cast(bytes | None, client.get(CONFIG_DB_GENERATION_KEY))
        finally:
            client.close()
        self.journal.start()  # before clients can reach the server: nothing they write is missed
        if self.server is not None:
            self.server.promote()
        return cold, restored, raw.decode() if raw else "0"

    # -- what status shows -----------------------------------------------------------------------
    def record(self) -> dict[str, str]:
        """STATE_DB ``NOS_DAEMON_TABLE|redis``."""
        pid = self.server.proc.pid if self.server is not None and self.server.proc is not None else 0
        fields = {"pid": str(pid), "status": "running", "started": f"{self.started:.3f}",
                  "restarts": str(self.restarts)}
        if self.last_exit:
            fields.update(last_exit=self.last_exit, last_exit_time=f"{self.last_exit_time:.3f}")
        if self.journal is not None and self.journal.error:
            fields["journal_error"] = self.journal.error
        return fields


def _flush_others(url: str) -> None:
    """Empty every database but CONFIG_DB (what a cold boot starts from)."""
    config = default_db_config()
    for name in NON_CONFIG_DBS:
        client = redis.Redis.from_url(url, db=config.info(name).id, protocol=2)
        try:
            client.flushdb()
        finally:
            client.close()
