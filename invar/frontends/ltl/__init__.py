"""The LTL frontend: formulas and lasso traces as IR programs.

A unit is a formula, or a formula with a trace. Its :class:`~invar.program.Program`
has the formula as line 0 and the trace (when present) as line 1; every AP
occurrence, in either line, is a token of view ``ap`` whose referent is the AP's
name, so a renaming maps formula and trace together (alpha-conversion).
Operators, constants, parentheses and the trace's ``; { }`` are tokens whose
view is their own text (singleton views) and that name nothing.

How a ``.ltl`` file splits into units (docs/formats.md, "LTL"):

* blank lines and lines starting with ``#`` are skipped;
* a *trace word* is a whitespace-separated word containing ``;``, ``{`` or
  ``}`` (formulas never contain these characters);
* a line whose first word is a trace word is a *trace line*; it pairs with the
  formula line just before it (DeepLTL's alternating format);
* a line with a trace word later on is a *pair line*: the formula is the text
  before that word, the trace the text from it to the end of the line (a tab,
  when present, separates them instead, so traces may contain spaces);
* any other line is a *formula line*, a unit of its own unless a trace line
  follows.

A malformed formula or trace leaves out its unit only: :func:`parse_units`
returns the others as a :class:`~invar.frontends.units.Units` whose
``skipped`` holds one located error per unit left out.

The face (shaped like every frontend's, :mod:`invar.frontends`): ``LANG``,
:func:`parse_units`, :func:`parse`, :func:`renaming_space`,
:func:`canonical_space`, and LTL's own :func:`program_of`, :func:`pair_of`,
:func:`parse_jsonl_units`, :func:`check_program` and the formula and trace
readers and writers. It only re-exports. The package's modules:
:mod:`.parse` (units: :func:`parse_units`, :func:`program_of`, ...),
:mod:`.rename` (the renaming rules), :mod:`.formula` (formulas: lexing, parsing, infix and Polish text),
:mod:`.trace` (symbolic lasso traces), :mod:`.generate` (random formulas
labelled with satisfying traces, for datasets) and the exact checker:
:mod:`.check` (its public face: :func:`~.check.check`,
:func:`~.check.satisfying_trace`) built on :mod:`.tableau` (the formula
automaton), :mod:`.steps` (a trace's step formulas), :mod:`.product` (the
product and its accepting lasso) and :mod:`.limits` (deadline and state limit);
:func:`check_program` checks a unit's trace against its formula.

Part of the frontends layer: the package imports only the ground floor
(errors, program, interrupts), symmetry and the frontends' shared modules;
it must not import encoding, tasks, data, nn, checkpoint, train, audit, alta
or cli.
"""

from __future__ import annotations

from .check import check_program
from .formula import Formula, parse_formula, to_infix, to_polish
from .parse import LANG, locate, pair_of, parse, parse_jsonl_units, parse_units, program_of
from .rename import canonical_space, renaming_space
from .trace import Trace, parse_trace, to_trace_text

__all__ = [
    "LANG",
    "parse_units",
    "parse",
    "renaming_space",
    "canonical_space",
    "program_of",
    "pair_of",
    "parse_jsonl_units",
    "check_program",
    "locate",
    "Formula",
    "Trace",
    "parse_formula",
    "parse_trace",
    "to_infix",
    "to_polish",
    "to_trace_text",
]
