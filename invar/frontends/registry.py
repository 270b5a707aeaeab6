"""One :class:`Frontend` record per language, registered in one table.

Everything invar knows about a language outside its own package is a field
or a hook of its record: how its files are named and decoded, which module
reads it, which module holds its renaming rules, how a renamed name is
spelled, and the few facts of its syntax that the layers above it need (a
line comment, ``<``/``>`` as type brackets, ...). Code outside
``invar/frontends`` asks the record (``REGISTRY[program.lang].sigil``),
never the language's name; tests/frontends/test_registry.py keeps it so.

Hooks are ``"module:attribute"`` strings, imported on first use
(:meth:`Frontend.hook`), so that reading the table imports no frontend and
``import invar`` stays cheap.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

from ..symmetry.spaces import register_rules

#: how a file of a language splits into the examples an audit reads
Layout = Literal["units", "paragraphs", "lines"]


@dataclass(frozen=True, slots=True)
class Frontend:
    """What invar knows about one language, lazily: names, not modules."""

    #: the language's name: the value of ``--lang``, and ``Program.lang`` of what it builds (but see ``program_lang``)
    name: str
    #: how messages call it (``a Python program``, ``x86 assembly``)
    title: str = ""
    #: the module whose ``parse_units(text, path=None)`` reads a file of it ("": no frontend reads it)
    reader: str = ""
    #: file extensions that mean this language
    extensions: tuple[str, ...] = ()
    #: ``Program.lang`` of the programs it builds ("" : ``name``); BHive hex decodes to x86 programs
    builds: str = ""
    #: the module with its renaming rules, ``renaming_space`` and ``canonical_space`` (the canonical-name rule)
    rules: str = ""
    #: ``spell(view, target) -> text``: a renamed token's text ("": the target's name itself)
    spell: str = ""
    #: the prefix of every renamable name that a model's answer may leave out (x86: ``%rax`` answered ``rax``)
    sigil: str = ""
    #: ``encoding_of(data, path) -> codec`` for its files' bytes ("": UTF-8, a byte-order mark dropped)
    encoding: str = ""
    #: how a file splits into examples: the reader's units, or blocks (paragraphs of text, or a hex row per line)
    layout: Layout = "units"
    #: ``read_block(source, *, name, path, line) -> Program``: one block of a file, located ("": none)
    block: str = ""
    #: the language of the same programs written as machine-code hex ("" : none)
    hex_form: str = ""
    #: ``standalone(text, holder) -> text``: a unit's text as a file that holds it alone ("": the text itself)
    standalone: str = ""
    #: what starts a line comment
    comment: str = "#"
    #: whether ``<`` and ``>`` also bracket type arguments (Java generics), not only compare
    angle_brackets: bool = False
    #: whether its referents are a unit's locals, which no one reads once it returns (a register outlives a block)
    locals_die: bool = False
    #: whether its frontend leaves out that a written operand may be read too (x86 ``addq %rbx, %rax``)
    writes_read: bool = False
    #: whether a literal alone on its line is a statement that computes nothing (a Python docstring)
    inert_alone: bool = False
    #: the first line of a unit that holds its label rather than its input (an LTL unit's trace), or None
    label_from: int | None = None
    #: views that are one family for a capture (a parameter is a local): (view, family) pairs
    view_families: tuple[tuple[str, str], ...] = ()

    @property
    def program_lang(self) -> str:
        """``Program.lang`` of the programs this frontend builds."""
        return self.builds or self.name

    def hook(self, field: str) -> Any:
        """The callable or module a hook field names, imported now."""
        ref = getattr(self, field)
        if not ref:
            raise AttributeError(f"the {self.name or 'unread'} frontend has no {field} hook")
        module, _, attribute = ref.partition(":")
        loaded = importlib.import_module(module)
        return getattr(loaded, attribute) if attribute else loaded

    def family(self, view: str) -> str:
        """The view family ``view`` belongs to (itself unless listed)."""
        return dict(self.view_families).get(view, view)


X86 = Frontend(
    name="x86",
    title="x86 assembly",
    reader="invar.frontends.x86",
    extensions=(".s", ".S", ".asm"),
    rules="invar.frontends.x86",
    spell="invar.frontends.x86.registers:spell",
    sigil="%",
    layout="paragraphs",
    block="invar.frontends.x86.parse:read_block",
    hex_form="hex",
    writes_read=True,
)
HEX = Frontend(
    name="hex",
    title="x86 assembly",
    reader="invar.frontends.x86.hexblock",
    extensions=(".hex", ".csv"),  # BHive's files as published: hex,frequency per line
    builds="x86",
    layout="lines",
    block="invar.frontends.x86.hexblock:read_block",
)
PYTHON = Frontend(
    name="python",
    title="Python",
    reader="invar.frontends.python",
    extensions=(".py",),
    rules="invar.frontends.python",
    encoding="invar.frontends.python.source:encoding_of",
    locals_die=True,
    inert_alone=True,
    view_families=(("param", "local"),),
)
JAVA = Frontend(
    name="java",
    title="Java",
    reader="invar.frontends.java",
    extensions=(".java",),
    rules="invar.frontends.java",
    standalone="invar.frontends.java.parse:standalone",
    comment="//",
    angle_brackets=True,
    locals_die=True,
    view_families=(("param", "local"),),
)
LTL = Frontend(
    name="ltl",
    title="LTL",
    reader="invar.frontends.ltl",
    extensions=(".ltl",),
    rules="invar.frontends.ltl",
    label_from=1,
)

#: every language a frontend reads, by name: the one table
REGISTRY: dict[str, Frontend] = {f.name: f for f in (X86, HEX, PYTHON, JAVA, LTL)}

#: the record of a language no frontend reads (a task's own: copy strings,
#: character windows, ALTA inputs): no hooks, every fact off
UNREAD = Frontend(name="")


# symmetry, a layer below, cannot read this table: each language's renaming rules are registered with it
for _record in REGISTRY.values():
    if _record.rules:
        register_rules(_record.program_lang, _record.rules)


def frontend_of(lang: str) -> Frontend:
    """The record of ``lang``, or :data:`UNREAD` where no frontend reads it."""
    return REGISTRY.get(lang, UNREAD)


__all__ = ["Frontend", "Layout", "REGISTRY", "UNREAD", "frontend_of", "X86", "HEX", "PYTHON", "JAVA", "LTL"]
