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
from typing import Iterable, Sequence

from .errors import InvarError, ParseError
from .frontends import registry as _registry  # noqa: F401 - registers each language's renaming rules (symmetry/spaces.py)
from .program import Line, Program, Token
from .version import __version__


def parse(text: str, lang: str, *, path: str | None = None) -> Program:
    """Parse ``text`` in ``lang`` into one :class:`Program` (the first unit when
    the input holds several; see :func:`parse_units`)."""
    return parse_units(text, lang, path=path)[0]


def parse_units(text: str, lang: str, *, path: str | None = None) -> list[Program]:
    """Parse ``text`` into all its units (functions, blocks, formula/trace pairs)."""
    from .frontends import lang_of, parse_units as _parse_units

    return _parse_units(text, lang_of(path, lang), path)


def renamings(program: Program, *, pool: Sequence[str] | None = None, pins: Iterable[str] = ()):
    """The exact space of semantics-preserving renamings of ``program``."""
    from .symmetry.spaces import renaming_space

    return renaming_space(program, pool=pool, pins=pins)


def permutations(program: Program, *, max_states: int | None = None):
    """The exact space of semantics-preserving line orders of ``program``."""
    from .symmetry.permutations import DEFAULT_MAX_STATES, PermutationSpace

    return PermutationSpace(program, max_states=max_states or DEFAULT_MAX_STATES)


def dlg(program: Program):
    """The directed layered graph of ``program``'s dependencies."""
    from .symmetry.dlg import dlg as _dlg

    return _dlg(program)


def load_model(path: str, *, task: str | None = None, device: str | None = None):
    """The trained model stored at ``path``: ``.task``, ``.config`` and
    ``.predict(programs, *, batch_size=…, device=…)`` (one prediction per
    program); ``.predict_encoded`` takes encodings (:mod:`invar.encoding`).
    A checkpoint of another ``task``, or one that is not plain weights and
    data, is refused with :class:`~invar.errors.ModelError`."""
    from .checkpoint import load_model as _load_model

    return _load_model(path, task=task, device=device)


def audit(model, dataset, **kwargs):
    """Audit ``model`` on ``dataset`` as ``invar audit`` does: violation
    rate, alpha-covariance, spread and the task's metric under the task's
    symmetries (docs/audit.md; keyword arguments as :func:`invar.audit.audit`).
    Returns an Audit: ``.report`` (the JSON report), ``.records``."""
    from .audit import audit as _audit

    return _audit(model, dataset, **kwargs)


def train(config=None, /, **kwargs):
    """Train an architecture on a task's dataset, as ``invar train`` does:
    a :class:`~invar.config.TrainConfig`, changed by any keyword settings
    (as :func:`invar.train.train`). Returns its TrainResult."""
    from .train import train as _train

    return _train(config, **kwargs)


__all__ = [
    "InvarError",
    "ParseError",
    "Program",
    "Line",
    "Token",
    "parse",
    "parse_units",
    "renamings",
    "permutations",
    "dlg",
    "load_model",
    "train",
    "audit",
    "__version__",
]
