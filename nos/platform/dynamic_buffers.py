"""A SKU's startup config in SONiC's dynamic buffer model, derived from its default (traditional) config:
``python -m nos.platform.dynamic_buffers SKU [-o FILE]``, then ``nos up --sku SKU --config FILE``.

Pure apart from the command line. What changes (SONiC's ``buffers_config.j2`` with ``buffer_model``
dynamic, and ``Configuration.md`` defaults):

* DEVICE_METADATA|localhost ``buffer_model`` dynamic;
* DEFAULT_LOSSLESS_BUFFER_PARAMETER|AZURE {default_dynamic_th 0} and LOSSLESS_TRAFFIC_PATTERN|AZURE
  {mtu 1024, small_packet_percentage 100};
* pools in ``dynamic`` mode lose their ``size`` (the manager computes it from the ASIC buffer less what
  the ports reserve); static pools keep theirs;
* no lossless BUFFER_PG rows (a user adds ``BUFFER_PG|<port>|3-4`` {profile NULL} to get one).
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Sequence
from pathlib import Path

from nos.platform.defaults import ConfigDb, config_db_to_json
from nos.platform.sku import load_sku
from nos.schema import tables as t

AZURE = "AZURE"
DEFAULT_PARAMETER = {"default_dynamic_th": "0"}
TRAFFIC_PATTERN = {"mtu": "1024", "small_packet_percentage": "100"}


def dynamic_config(config: ConfigDb) -> ConfigDb:
    """``config`` (a traditional-model config_db.json) turned to the dynamic model (a new dict)."""
    out = copy.deepcopy(config)
    out[t.CFG_DEVICE_METADATA_TABLE_NAME]["localhost"]["buffer_model"] = "dynamic"
    out[t.CFG_DEFAULT_LOSSLESS_BUFFER_PARAMETER] = {AZURE: dict(DEFAULT_PARAMETER)}
    out[t.CFG_LOSSLESS_TRAFFIC_PATTERN_TABLE_NAME] = {AZURE: dict(TRAFFIC_PATTERN)}
    for pool in out.get(t.CFG_BUFFER_POOL_TABLE_NAME, {}).values():
        if pool.get("mode") == "dynamic":
            pool.pop("size", None)
    pgs = out.get(t.CFG_BUFFER_PG_TABLE_NAME, {})
    for key in [k for k, v in pgs.items() if v.get("profile") == "NULL" or "lossless" in v.get("profile", "")]:
        del pgs[key]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nos.platform.dynamic_buffers", description=__doc__.split("\n")[0])
    parser.add_argument("sku", help="SKU name, e.g. Force10-S6000")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    text = config_db_to_json(dynamic_config(load_sku(args.sku).default_config()))
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

