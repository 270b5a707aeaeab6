"""Canonicalized sequence models: read the canonical renaming, write back in the input's names.

A pair's encoding (source on line 0, target on line 1) carries the token ids
of its canonical renaming (``Encoded.canon``, from
:func:`invar.symmetry.spaces.canonical`): every interchangeable name (an LTL
AP, a copy symbol) becomes the pool name of its rank by first appearance,
``a, b, c, …``. The source comes first, so its canonical ids depend on the
source alone; the target's names follow the same renaming (a target-only
name gets the next pool name). Every renaming of a pair has the same
canonical form, so the network sees one input for all of them.

A canonicalized encoder-decoder trains on :func:`canonical_pair` (source and
target renamed alike) and predicts on it too: the written canonical token
ids are mapped back through the inverse renaming of that very input
(:func:`back_map`, :func:`map_back`). Hence, for every input ``x`` and
renaming ``s`` of its names, ``predict(s(x)) == s(predict(x))`` token for
token: both decode the same canonical ids, and map back through ``s`` composed
with the same inverse. With ``restrict_output`` (the default) the decoder
writes only interchangeable names its source holds, so the map back is
total; without it, a written name the input lacks has no name to go back
to, and that example's prediction is a :class:`~invar.errors.ModelError`
(:class:`Unmapped`), the others unaffected.

Equal canonical inputs must also decode to the same ids, whatever else is in
their batch (a batch's size can change a matrix product's rounding, and with
it an argmax). :class:`Memo` makes them share one computation: a model
decodes each distinct canonical source once per set of weights and reuses
the result, within a call and across calls.

Dimensions: T tokens of a pair, S of its source. Imports encoding and
errors only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Hashable, Sequence

import numpy as np

from ..encoding import UNK, Encoded
from ..errors import ModelError


class Unmapped(ModelError):
    """A written name that names nothing in the input (``restrict_output=False``)."""


def canonical_pair(enc: Encoded, referent_of: np.ndarray) -> Encoded:
    """``enc`` with its canonical token ids in place of its own, and the
    referent ids they name (``referent_of``: (V,) token id -> referent id,
    :func:`invar.encoding.token_parts`); a name the vocabulary lacks keeps
    the unknown referent. ModelError when ``enc`` has no canonical ids."""
    if enc.canon is None or len(enc.canon) != len(enc.tokens):
        raise ModelError(
            "a canonicalized model reads encodings with canonical ids: "
            "encode the pair with canonical=True (Model.encode does)"
        )
    named = enc.referents != 0  # (T,)
    refs = referent_of[enc.canon]
    refs = np.where(named, np.where(refs > 0, refs, UNK), 0).astype(enc.referents.dtype)
    return replace(enc, tokens=enc.canon, referents=refs)


def back_map(enc: Encoded) -> dict[int, int]:
    """Canonical token id -> the input's own token id, for every name of the
    source. ModelError when the canonical ids do not rename the source's
    names one to one (an encoding whose ``canon`` belongs to another input)."""
    src = (enc.lines == 0) & (enc.referents != 0)
    back: dict[int, int] = {}
    for c, t in zip(enc.canon[src].tolist(), enc.tokens[src].tolist()):
        if back.setdefault(c, t) != t:
            raise ModelError("the encoding's canonical ids do not match its names: encode it again")
    if len(set(back.values())) != len(back):
        raise ModelError("the encoding's canonical ids do not match its names: encode it again")
    return back


def source_key(enc: Encoded) -> bytes:
    """What the decoder's output depends on: the canonical source ids (and
    its tree paths, where the encoding has them)."""
    src = enc.lines == 0
    parts = [np.ascontiguousarray(enc.canon[src], dtype=np.int64).tobytes()]
    if enc.tree is not None:
        parts.append(np.ascontiguousarray(enc.tree[src], dtype=np.int64).tobytes())
    return b"|".join(parts)


def map_back(
    ids: Sequence[int], back: dict[int, int], interchangeable: Sequence[bool], tokens: Sequence[str]
) -> list[int]:
    """Written canonical ids -> ids in the input's names; an interchangeable
    id the source does not hold raises :class:`Unmapped` naming it."""
    out = []
    for i in ids:
        if interchangeable[i]:
            if i not in back:
                raise Unmapped(
                    f"the model wrote {tokens[i]!r}, a canonical name the input does not hold, so it "
                    "names nothing of the input (restrict_output=False)"
                )
            i = back[i]
        out.append(i)
    return out


def weights_stamp(module) -> tuple:
    """Changes whenever a parameter or buffer of ``module`` is replaced,
    moved or written in place (every in-place write bumps a tensor's version)."""
    return tuple((id(t), t.device, t.data_ptr(), t._version) for t in (*module.parameters(), *module.buffers()))


class Memo:
    """Decoded canonical sources, per set of weights: key -> written ids.
    Emptied when the weights change (:func:`weights_stamp`) or past ``limit``
    entries."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self.stamp: tuple | None = None
        self.table: dict[Hashable, list[int]] = {}

    def bind(self, stamp: tuple) -> None:
        """Forget everything decoded with other weights."""
        if stamp != self.stamp or len(self.table) > self.limit:
            self.stamp, self.table = stamp, {}


__all__ = ["Unmapped", "canonical_pair", "back_map", "source_key", "map_back", "weights_stamp", "Memo"]
