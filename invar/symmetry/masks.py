"""Attention masks derived from a program's structure: small pure functions.

Every mask is a square ``bool`` array whose entry ``[i, j]`` says whether
position ``i`` may attend to position ``j`` (row = query, column = key).

* :func:`symmetry_mask` (SPE Definition 4.4), over lines: 1 between lines of
  one DLG layer (both directions, the diagonal included) and from ``i`` to
  ``j`` for a dependency edge ``i -> j``; 0 elsewhere. Its transpose lets a
  line attend to the lines it depends on instead.
* :func:`token_mask`: the symmetry mask expanded to tokens; token ``a`` may
  attend to token ``b`` when their lines may.
* :func:`referent_mask`: tokens ``a`` and ``b`` are coreferential (same
  non-``None`` referent). Tokens that name nothing have an all-zero row;
  callers that need a non-empty row add the identity.
"""

from __future__ import annotations

import numpy as np

from ..program import Program
from .dlg import dlg


def symmetry_mask(program: Program, *, transpose: bool = False) -> np.ndarray:
    """Line-level symmetry mask, shape ``(lines, lines)``."""
    graph = dlg(program)
    layer = np.asarray(graph.layer_of, dtype=np.int64)
    mask = layer[:, None] == layer[None, :]
    if graph.edges:
        src, dst = np.asarray(graph.edges).T
        mask[src, dst] = True
    return mask.T.copy() if transpose else mask


def token_mask(program: Program, *, transpose: bool = False) -> np.ndarray:
    """Symmetry mask expanded to tokens, shape ``(tokens, tokens)``."""
    line_of = np.asarray([t.line for t in program.tokens], dtype=np.int64)
    return symmetry_mask(program, transpose=transpose)[np.ix_(line_of, line_of)]


def referent_mask(program: Program) -> np.ndarray:
    """Coreference between tokens, shape ``(tokens, tokens)``."""
    ids = {r: k for k, r in enumerate(program.referents)}
    ref = np.asarray(
        [ids.get(t.referent, -1) if t.referent is not None else -1 for t in program.tokens], dtype=np.int64
    )
    return (ref[:, None] == ref[None, :]) & (ref[:, None] >= 0)


__all__ = ["symmetry_mask", "token_mask", "referent_mask"]
