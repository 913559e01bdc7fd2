"""Logging set-up shared by every daemon: event-named messages, one format."""

from __future__ import annotations

import logging
import sys

FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"


def setup_logging(level: str | int = "INFO") -> None:
    logging.basicConfig(level=level, format=FORMAT, stream=sys.stderr, force=True)
