"""ALTA: programs whose Transformer weights are compiled, run by an interpreter too.

The language (:mod:`.lang`: ``var``, ``numerical``, ``set_var``, ``qkv``,
``relative``, :class:`MLPBuilder`, ``program``) builds a
:class:`~.spec.AltaProgram`, plain data that goes to JSON and back
(:mod:`.spec`). :func:`run` interprets it on one input
(:mod:`.interpreter`); :func:`compile` turns it into a torch module
(:mod:`.compiler`); :mod:`.check` compares the two; :mod:`.store` reads
programs by name or file and keeps compiled models as checkpoints;
:mod:`.programs` (with :mod:`.probes`) ships programs by name.

The alta part may import errors, program, symmetry, frontends, encoding,
data, tasks, nn and checkpoint; never train, audit, the face or cli.
"""

from __future__ import annotations

from .interpreter import ExecutionTrace, Interpreter, Run, run, tokens_of
from .lang import MLPBuilder, numerical, program, qkv, relative, rules_of_function, set_var, var
from .programs import PROGRAMS, get_program
from .spec import AltaError, AltaProgram, Head, Init, Rule, Variable

#: the names these classes had before they were told apart from invar.Program and the LTL
#: frontend's Trace; kept for one release, to be removed after it
Program = AltaProgram
Trace = ExecutionTrace


def minimal(program: AltaProgram, inputs, *, max_layers: int | None = None, mixtures: bool = True) -> AltaProgram:
    """The minimal version of ``program`` on ``inputs`` (:func:`.analysis.minimal`)."""
    from .analysis import minimal as _minimal

    return _minimal(program, inputs, max_layers=max_layers, mixtures=mixtures)


def compile(program: AltaProgram, *, lam: float = 100.0):  # noqa: A001
    """The compiled torch module of ``program`` (:class:`~.compiler.Compiled`), λ = ``lam``."""
    from .compiler import compile_program

    return compile_program(program, lam=lam)


__all__ = [
    "AltaError",
    "AltaProgram",
    "Variable",
    "Head",
    "Rule",
    "Init",
    "Run",
    "ExecutionTrace",
    "Interpreter",
    "var",
    "numerical",
    "set_var",
    "qkv",
    "relative",
    "MLPBuilder",
    "program",
    "rules_of_function",
    "run",
    "tokens_of",
    "compile",
    "minimal",
    "PROGRAMS",
    "get_program",
    "Program",
    "Trace",
]
