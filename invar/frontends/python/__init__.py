"""The Python frontend: functions as programs of statements.

Read with ``ast`` and ``symtable`` only; nothing is ever executed.

**Units.** Every function and method, nested ones included, is a unit named by
its ``__qualname__`` (``C.m``, ``f.<locals>.g``), in source order. A file
without any function is one unit, ``<module>``, holding its top-level
statements.

**Lines.** A line is one statement with the comment and blank lines that
precede it, as whole physical lines of the original text, so rendering the
unit (lines joined by ``"\\n"``) gives back its source exactly, and a
statement moves with its comments and formatting. Line 0 is the ``def`` header
(decorators included) and never moves (block -1). A compound statement
(``if``, ``for``, ``while``, ``with``, ``try``, ``match``, a nested ``def`` or
``class``) is one line at its level; its bodies are blocks of their own, one
level deeper. Clause lines (``elif …:``, ``else:``, ``except …:``,
``finally:``, ``case …:``) and docstrings never move (block -1); they sit one
level below their statement, so they travel with it. Statements sharing a
physical line (``a = 1; b = 2``, ``if x: return y``) form one line.

**Tokens.** One per occurrence of a variable name (``Name``, parameters and
the bindings of ``def``, ``class``, ``import``, ``except … as``,
``global``/``nonlocal`` and ``match`` captures). Views: ``param``, ``local``,
``import``, ``global``, ``builtin``, ``free``, ``class``, ``name``. Only
parameters and locals bound inside the unit (its own scope or any nested
function, lambda or comprehension scope) have a referent,
``local:<scope>:<name>``; every other token has ``None``. Referents whose
spelling the program observes are pinned (docs/semantics.md): keyword-passable
parameters, ``def``/``class`` names, names in ``f"{x=}"``, and every local of
a unit that reads a scope by name (``locals()``, or ``locals`` by any other
name: :mod:`.reach`).

**Dependencies** are computed per block by :mod:`.effects` and
:func:`invar.frontends.effects.block_deps`; a class body keeps its statements in order (its
namespace order is meaning).

**Skipped units.** :func:`parse_units` raises only for the whole file (a
syntax error, an input over
:data:`invar.frontends.units.MAX_CHARS`, nesting the compiler cannot
handle). A function that cannot be built is left out and reported, with its
location, in the returned list's ``skipped`` (see :mod:`invar.frontends.units`).

**Modules.** ``parse`` (units, lines, blocks, tokens), ``scopes`` (symtable
scopes matched to ast nodes; every name resolved), ``reach`` (which calls may
read their scope whatever they are called, and whether the module's
namespace is reachable as an object), ``effects`` (what a statement reads and
writes), ``rename`` (the renaming rules: the shared
:mod:`invar.frontends.locals` with Python's reserved words), ``source``
(how a file's bytes are decoded: PEP 263). The face (shaped like every
frontend's, :mod:`invar.frontends`): ``LANG``, ``parse_units``, ``parse``,
``renaming_space``, ``canonical_space`` and the record's hook
``encoding_of``. This package
imports only the frontend level (``effects``, ``units``, ``nesting``,
``locals``), ``symmetry``, ``errors`` and ``program``; never ``encoding``,
tasks, models or the CLI.
"""

from ..registry import PYTHON
from .parse import parse, parse_units
from .rename import canonical_space, renaming_space
from .source import encoding_of

LANG = PYTHON.name

__all__ = ["LANG", "parse_units", "parse", "renaming_space", "canonical_space", "encoding_of"]
