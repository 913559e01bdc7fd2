"""The ``nos`` command: ``nos up|down|status``, ``nos config ...``, ``nos show ...``, ``nos user|token ...``.

No command ends in a traceback: what none of them handles is one line and exit status 1
(``nos.cli.guard``; ``NOS_DEBUG=1`` adds the traceback).
"""

from __future__ import annotations

import importlib
import os

import click

from nos import __version__
from nos.cli.guard import GuardedGroup

#: Every command, by name -> "module:attribute", imported only when it runs (or for --help): a command
#: pays for its own imports, not for every other command's (``nos --help`` 0.36 s -> see the README).
COMMANDS = {
    "up": "nos.cli.switch:up", "down": "nos.cli.switch:down", "status": "nos.cli.switch:status",
    "config": "nos.cli.config:config", "redis-cli": "nos.cli.switch:redis_cli", "show": "nos.cli.show:show",
    "user": "nos.cli.user:user", "token": "nos.cli.user:token", "roce": "nos.cli.roce:roce",
    "traffic": "nos.cli.traffic:traffic", "trace": "nos.cli.trace:trace", "lab": "nos.cli.lab:lab",
    "fabric": "nos.cli.fabric:fabric", "attach": "nos.cli.attach:attach",
}


class LazyGroup(GuardedGroup):
    """The top-level group: its commands load on first use (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, attr = COMMANDS[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    from nos.cli.common import fail
    from nos.lab.labdir import LabNotFound, node_run_dir

    try:
        os.environ["NOS_RUN_DIR"] = str(node_run_dir(lab_name, node))
    except LabNotFound as exc:
        fail(str(exc))


def main() -> None:
    cli(prog_name="nos")


if __name__ == "__main__":
    main()
