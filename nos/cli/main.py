"""The ``nos`` command: ``nos up|down|status``, ``nos config ...``, ``nos show ...``, ``nos user|token ...``.

No command ends in a traceback: what none of them handles is one line and exit status 1
(``nos.cli.guard``; ``NOS_DEBUG=1`` adds the traceback).
"""

from __future__ import annotations

import os

import click

from nos import __version__
from nos.cli.common import fail
from nos.cli.config import config
from nos.cli.guard import GuardedGroup
from nos.cli.lab import lab
from nos.cli.roce import roce
from nos.cli.show import show
from nos.cli.switch import down, redis_cli, status, up
from nos.cli.trace import trace
from nos.cli.traffic import traffic
from nos.cli.user import token, user
from nos.lab.labdir import LabNotFound, node_run_dir


@click.group(cls=GuardedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nos")
@click.option("--lab", "lab_name", help="With --node: run the command against a switch of this lab "
              "(default: the only lab running).")
@click.option("--node", help="A switch of a lab (nos lab status lists them): the command runs against it.")
def cli(lab_name: str | None, node: str | None) -> None:
    """A SONiC-style switch with a simulated 128x400G ASIC."""
    if node is None:
        if lab_name is not None:
            os.environ["NOS_LAB"] = lab_name  # the lab commands' default lab
        return
    try:
        os.environ["NOS_RUN_DIR"] = str(node_run_dir(lab_name, node))
    except LabNotFound as exc:
        fail(str(exc))


cli.add_command(up)
cli.add_command(down)
cli.add_command(status)
cli.add_command(config)
cli.add_command(redis_cli)
cli.add_command(show)
cli.add_command(user)
cli.add_command(token)
cli.add_command(roce)
cli.add_command(traffic)
cli.add_command(trace)
cli.add_command(lab)


def main() -> None:
    cli(prog_name="nos")


if __name__ == "__main__":
    main()
