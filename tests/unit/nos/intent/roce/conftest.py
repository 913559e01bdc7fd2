"""Plain-data fixtures: the 128x400G SKU's default configuration and its facts."""

from __future__ import annotations

import copy

import pytest

from nos.intent.roce import facts_for
from nos.intent.roce.facts import RoceFacts
from nos.platform.sku import load_sku
from nos.schema.config import Config

SKU = "NOS-SIM-128x400G"


@pytest.fixture(scope="session")
def _default() -> Config:
    return load_sku(SKU).default_config()


@pytest.fixture
def default(_default: Config) -> Config:
    """A private copy of the SKU's default CONFIG_DB."""
    return copy.deepcopy(_default)


@pytest.fixture
def facts(_default: Config) -> RoceFacts:
    return facts_for(_default)


def with_intent(config: Config, **fields: str) -> Config:
    return {**config, "ROCE": {"global": dict(fields)}}
