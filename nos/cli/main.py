"""The ``nos`` command: ``nos up|down|status``, ``nos config ...``, ``nos show ...``, ``nos user|token ...``.

No command ends in a traceback: what none of them handles is one line and exit status 1
(``nos.cli.guard``; ``NOS_DEBUG=1`` adds the traceback).
"""

from __future__ import annotations

import click

from nos import __version__
from nos.cli.config import config
from nos.cli.guard import GuardedGroup
from nos.cli.lab import lab
from nos.cli.roce import roce
from nos.cli.show import show
from nos.cli.switch import down, redis_cli, status, up
from nos.cli.trace import trace
from nos.cli.traffic import traffic
from nos.cli.user import token, user


@click.group(cls=GuardedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nos")
def cli() -> None:
    """A SONiC-style switch with a simulated 128x400G ASIC."""


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
