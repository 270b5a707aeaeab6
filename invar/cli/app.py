"""The typer application: every command, listed in one place, and the
console-script entry point.

The commands live in modules of their own under ``invar.cli``; they import
what they share from :mod:`.options` (option types, formats) and
:mod:`.console` (consoles, input reading, error translation), never this
module, so the package has no import circle. This is the one module that
imports the commands.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Annotated

import rich.markup
import typer
import typer.core
import typer.rich_utils

from . import alta, audit, canon, data, dlg, ltl, parse_cmd, permutations, predict, renamings, train
from .console import run, show_usage_error
from .options import terminal_help

# counts of long programs have far more than the 4,300 digits Python converts
# to text by default (a guard against slow parsing of untrusted numbers, which
# invar never parses): print them whole
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

# a usage error (an option's bad value, an unknown option) is one located line, as every other error
# is, not typer's framed panel (typer shows every one through this function)
_panel = typer.rich_utils.rich_format_error
typer.rich_utils.rich_format_error = functools.partial(show_usage_error, shown=_panel)

# how --help names an option's value: typer writes <bool> beside every flag, which takes none, and
# <list[str]> beside a repeatable option, which takes one value each time it is given
_value_of = typer.core.TyperOption.display_type_rich


def _value_named(option: typer.core.TyperOption, ctx) -> str | None:
    """The value an option takes, as its --help shows it: nothing for a
    flag; one value for a repeatable option, its metavar (``<REG>``) or
    ``<str>`` (typer: ``<list[str]>``), never ``<str>...``, which reads as
    several values after one flag (the help says "repeatable")."""
    if option.is_flag and not option.count:
        return None
    if option.multiple and option.metavar:
        return f"<{option.metavar}>"
    shown = _value_of(option, ctx)
    return re.sub(r"^<list\[(.*)\]>$", r"<\1>", shown) if isinstance(shown, str) else shown


typer.core.TyperOption.display_type_rich = _value_named  # type: ignore[method-assign]

# help texts are plain text written in reST's style: typer reads them as rich markup, which drops a
# bracketed word (``order[new] = old`` showed as ``order = old``), and prints ``x`` literally
# (typer's private helper: where a typer lacks it, help keeps typer's own rendering rather than failing)
_rich_text = getattr(typer.rich_utils, "_make_rich_text", None)


def _plain_help(*, text: str, style: str = "", markup_mode) -> object:
    """A help text as the terminal shows it: its brackets kept (escaped from
    rich's markup) and each ``x`` written 'x'."""
    if markup_mode == "rich":
        text = rich.markup.escape(terminal_help(text))
    return _rich_text(text=text, style=style, markup_mode=markup_mode)


if _rich_text is not None:
    typer.rich_utils._make_rich_text = _plain_help

app = typer.Typer(
    name="invar",
    help="Invariance analysis for models of code: parse programs, relate their tokens, "
    "enumerate and sample the transformations that keep their meaning.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: the commands, in the order ``invar --help`` lists them
COMMANDS = (
    ("parse", parse_cmd.parse_command),
    ("canon", canon.canon),
    ("renamings", renamings.renamings),
    ("permutations", permutations.permutations),
    ("dlg", dlg.dlg),
    ("train", train.train_command),
    ("predict", predict.predict_command),
)
#: the groups of subcommands, listed after the commands
GROUPS = (("ltl", ltl.ltl_app), ("data", data.data_app), ("audit", audit.audit_app), ("alta", alta.alta_app))


def _version(value: bool) -> None:
    if value:
        from ..version import __version__

        typer.echo(f"invar {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print invar's version and exit.")
    ] = False,
) -> None:
    """invar's own options, before any command (the app's help above is its help)."""


for _name, _command in COMMANDS:
    app.command(_name)(_command)
for _name, _group in GROUPS:
    app.add_typer(_group, name=_name)


def main() -> None:
    """Console-script entry point."""
    run(app)
