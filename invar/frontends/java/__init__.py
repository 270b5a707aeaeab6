"""The Java frontend: methods as programs of statements.

Read with ``javalang`` where it parses (Java 8, :mod:`.javalang_parser`) and
with ``tree-sitter-java`` where it does not (Java 17 syntax:
:mod:`.treesitter_parser`); both describe the file the same way
(:mod:`.syntax`) and :mod:`.parse` alone builds programs from that
description, so a method reads the same whichever parser read it. Nothing is
ever compiled or run.

**Units.** Every method and constructor with a body declared in a class,
interface or enum (nested types included), named ``Outer.Inner.method``; an
overloaded name gets ``@LINE`` appended. Methods of anonymous and local
classes stay inside the statement that declares them.

**Lines.** As for Python: a line is a statement with the comment and blank
lines before it, as whole physical lines, so a unit renders to its source
exactly. Line 0 is the method header up to the body's ``{`` (block -1). A
statement whose bodies are braced blocks that open at the end of a line and
close at the start of one (``if``/``else``, ``for``, ``while``, ``do``,
``try``/``catch``/``finally``, ``synchronized``, a bare block) is one line at
its level with one block per body; the closing lines (``} else {``,
``} catch (E e) {``, ``}``, ``} while (c);``) never move (block -1) and sit one
level deeper, so they travel with their statement. Anything else (a
``switch``, a body on the header's line) is a single line.

**Tokens.** Every lexical token of the unit's lines but comments, in
order. The method's identifiers are ``name`` tokens: parameters and locals
(:mod:`.scopes`) have the views ``param``/``local`` and the referent
``local:<unit>:<line>.<col>:<name>`` of their declaration; every other
identifier (fields, types, methods, labels) has the view ``name`` and no
referent, and is never a renaming target. Around them, keywords, operators,
separators, literals (and identifiers on the unit's lines outside the
method, kind ``identifier``) are read from the text by :mod:`.lexer`,
the same whichever parser read the file, each with its own text as view and
no referent; no renaming avoids them.

**Dependencies** (docs/formats.md lists them; docs/semantics.md is the
contract): per block, by the shared rule of :mod:`..effects`, from each
statement's effect (:mod:`.effects`); a statement also reads ``name:x``
for every simple name ``x`` it spells and a declaration of ``x`` writes it,
so declarations never move across statements whose names they would hide or
clash with. These ``name:`` resources order lines but are not shown as a
line's reads.

**Skipped units**: a method that cannot be described or built (a construct
invar does not support, nesting too deep) is left out and reported in
``skipped``.

**Modules.** ``parse`` (units, lines, blocks, tokens, from the description),
``syntax`` (the neutral description: tokens, statements, expressions,
declarations), the two parser adapters ``javalang_parser`` (with its
``javalang_repairs``) and ``treesitter_parser`` (with its
``treesitter_nodes``), ``lexer`` (the tokens between the names), ``scopes``
(declarations, block and pattern scopes), ``effects`` (what a statement reads
and writes), ``rename`` (the renaming rules: the shared
:mod:`invar.frontends.locals` with Java's keywords; the restricted
identifiers ``var``, ``yield``, ``record``, ``sealed`` and ``permits`` are
targets, JLS 3.9). The face (shaped like every frontend's,
:mod:`invar.frontends`): ``LANG``, ``parse_units``, ``parse``,
``renaming_space``, ``canonical_space`` and the record's hook
``standalone`` (a method as a file: inside a class). This package imports
only the frontend level (``effects``, ``units``, ``nesting``, ``locals``),
``symmetry``, ``errors`` and ``program``; never ``encoding``, tasks, models
or the CLI.
"""

from ..registry import JAVA
from .parse import parse, parse_units, standalone
from .rename import JAVA_KEYWORDS, RESTRICTED_IDENTIFIERS, canonical_space, renaming_space

LANG = JAVA.name

__all__ = [
    "LANG",
    "parse_units",
    "parse",
    "renaming_space",
    "canonical_space",
    "standalone",
    "JAVA_KEYWORDS",
    "RESTRICTED_IDENTIFIERS",
]
