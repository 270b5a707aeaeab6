"""invar: invariance analysis for models of code and assembly.

The public API::

    import invar
    block = invar.parse("mov 64(%rsp), %rax\\nsubq $1, 56(%rbp)", lang="x86")
    space = invar.renamings(block)
    space.count()                      # 3360: three base registers over sixteen
    space.apply(block, space.sample(1, rng=0)[0]).render()
    invar.permutations(block).count()  # 1: the store depends on the load
    invar.dlg(block).layers

    invar.train(task="bhive", data="bhive-haswell", arch="renamer", epochs=10, out="renamer.pt")
    model = invar.load_model("renamer.pt")
    model.predict([block])             # [cycles per iteration]
    invar.audit("renamer.pt", "fixtures/blocks").violation_rate   # 0.0: renamings never move it

The face is the top of the library (docs/architecture.md, Layers): it may
import every part but ``cli``, and imports the heavy ones (frontends, models,
training, audits) only when called, so ``import invar`` stays cheap.
"""

from __future__ import annotations

from . import interrupts  # noqa: F401 - first: the command line takes its signals before its imports
import importlib
import os
from typing import TYPE_CHECKING, Iterable, Sequence

from .errors import DataError, InvarError, ModelError, ParseError, SpaceError, UsageError
from .frontends import registry as _registry  # noqa: F401 - registers each language's renaming rules (symmetry/spaces.py)
from .frontends.units import Units
from .program import Line, Program, Token
from .version import __version__

if TYPE_CHECKING:  # the heavy parts, named in annotations only
    from .nn.model import Model
    from .symmetry.dlg import DLG
    from .symmetry.permutations import PermutationSpace
    from .symmetry.renamings import RenamingSpace


def parse(text: str, lang: str | None, *, path: str | None = None) -> Program:
    """Parse ``text`` in ``lang`` (None: from ``path``'s extension) into one
    :class:`Program`: the first unit when the input holds several. A unit
    that does not parse raises its located error (the first such, in source
    order), wherever it stands: the first unit that parses is not taken for
    the first unit of the text. :func:`parse_units` keeps the units that
    parse and lists the others."""
    units = parse_units(text, lang, path=path)
    if units.skipped:
        raise units.skipped[0]
    return units[0]


def parse_units(text: str, lang: str | None, *, path: str | None = None) -> Units:
    """Parse ``text`` into all its units (functions, blocks, formula/trace
    pairs) that parse, in source order; ``.skipped`` holds the error of each
    unit that does not (a ParseError when none parses)."""
    from .frontends import lang_of, parse_units as _parse_units

    return _parse_units(text, lang_of(path, lang), path)


def renamings(program: Program, *, pool: Sequence[str] | None = None, pins: str | Iterable[str] = ()) -> RenamingSpace:
    """The exact space of semantics-preserving renamings of ``program``.
    ``pins``: names never renamed (a register, ``"rsp"`` or ``"%rsp"``, for
    x86; a variable's name for Python and Java; an AP for LTL; one string is
    one name). ``pool``: the names a Python, Java or LTL program may be
    renamed into (default: the language's own, docs/semantics.md); x86
    renames registers within their classes and takes no pool."""
    from .symmetry.spaces import renaming_space

    return renaming_space(program, pool=pool, pins=(pins,) if isinstance(pins, str) else pins)


def permutations(program: Program, *, max_states: int | None = None) -> PermutationSpace:
    """The exact space of semantics-preserving line orders of ``program``.
    ``max_states``: the most down-sets an exact count may hold before it is
    refused as intractable (IntractableError, with bounds; sampling then
    runs a Markov chain); default :data:`~invar.symmetry.permutations.DEFAULT_MAX_STATES`."""
    from .symmetry.permutations import DEFAULT_MAX_STATES, PermutationSpace

    return PermutationSpace(program, max_states=DEFAULT_MAX_STATES if max_states is None else max_states)


def dlg(program: Program) -> DLG:
    """The directed layered graph of ``program``'s dependencies."""
    from .symmetry.dlg import dlg as _dlg

    return _dlg(program)


def load_model(path: str | os.PathLike, *, task: str | None = None, device: str | None = None) -> Model:
    """The trained model stored at ``path``: ``.task``, ``.config`` and
    ``.predict(programs, *, batch_size=…, device=…)`` (one prediction per
    program); ``.predict_encoded`` takes encodings (:mod:`invar.encoding`).
    A checkpoint of another ``task``, or one that is not plain weights and
    data, is refused with :class:`~invar.errors.ModelError`. Torch's global
    random stream is left as it was."""
    from .checkpoint import load_model as _load_model

    return _load_model(path, task=task, device=device)


def __getattr__(name: str):
    """``invar.audit`` and ``invar.train``: the modules of those names,
    imported on first use. Each is callable (``invar.audit(model, dataset,
    config, **options)``, ``invar.train(config, **settings)``: their
    functions :func:`invar.audit.audit` and :func:`invar.train.train`) and
    holds its types (``invar.audit.AuditConfig``), whichever is touched
    first; a function of the same name here would be replaced by the module
    the moment anything imported it, and would differ from it until then."""
    if name in _ON_USE:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: the parts imported on first use (each loads torch): named by ``dir(invar)``, left out of ``import *``
_ON_USE = ("audit", "train")


def __dir__() -> list[str]:
    return sorted({*globals(), *_ON_USE})


__all__ = [
    "InvarError",
    "ParseError",
    "DataError",
    "SpaceError",
    "ModelError",
    "UsageError",
    "Units",
    "Program",
    "Line",
    "Token",
    "parse",
    "parse_units",
    "renamings",
    "permutations",
    "dlg",
    "load_model",
    "__version__",
]
