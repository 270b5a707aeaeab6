"""Programs as arrays: the vocabulary, the encoded program, batches, the disk cache.

A program is tokenised and encoded once (:func:`encode`); everything a model
or a transformation needs afterwards is in the arrays of :class:`Encoded`:

* a **renaming** of an encoded program is an id remap (:func:`renamed`): the
  tokens of each moved referent get the ids of their new spellings, and the
  referent ids follow; nothing is rendered or re-parsed. It equals encoding
  the rendered renamed text (tests/test_encoding.py checks it on real blocks);
* a **permutation** is an index remap (:func:`permuted`): lines move with
  their tokens, and the dependencies and DLG layers move with their lines, as
  :meth:`invar.program.Program.reordered` does for programs.

Ids are small integers; id 0 is padding (tokens, views) or "no referent"
(referents). A token text the vocabulary does not hold gets the unknown id of
its view (``<unk:gpr:32>``), so a rare immediate still says it is an
immediate. The vocabulary is closed under renamings: every spelling that a
renaming of a training program can produce is in it.

:func:`collate` pads a list of encodings into a batch of tensors, and
:func:`save_encoded` / :func:`load_encoded` keep whole datasets on disk, so
training never parses.

Sequence-to-sequence tasks (LTL: formula -> trace; copy) encode a pair as one
program whose line 0 is the source and line 1 the target, so a renaming of
the pair is still one id remap of both; :func:`collate_pairs` splits it into
the encoder's source and the decoder's target, between :data:`BOS` and
:data:`EOS`. :func:`add_pool` puts a pool of interchangeable names (APs a-z)
in a vocabulary beyond those seen in training, which is what lets a model
with random embeddings name APs it never saw; :func:`token_parts` gives the
view and referent each token id names, from which the output projection
builds its rows.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from .frontends.registry import frontend_of
from .program import Program, Token

#: bump when the arrays :func:`encode` produces change meaning (invalidates disk caches)
ENCODING_VERSION = 3

PAD = 0
UNK = 1  # the unknown id in every table (tokens: of an unknown view)
_UNK_VIEW = "<unk>"
#: the decoder's first input and its last output (sequence-to-sequence tasks)
BOS = "<bos>"
EOS = "<eos>"


class NoIdRemap(ValueError):
    """A renaming that has no id remap on an encoding (:func:`renamed`): the
    caller encodes the renamed program instead."""


# ----------------------------------------------------------------- vocabulary
class Vocab:
    """Token texts, views and referents, each mapped to a small integer.

    ``tokens[0]`` is padding, then ``<unk>`` and one ``<unk:VIEW>`` per view,
    then the texts; ``views[0]`` is padding and ``views[1]`` unknown;
    ``referents[0]`` stands for "no referent" and ``referents[1]`` unknown.
    ``interchangeable[i]`` tells whether token ``i`` names a referent (the
    tokens a renaming may respell).
    """

    def __init__(
        self, tokens: Sequence[str], views: Sequence[str], referents: Sequence[str], interchangeable: Sequence[bool]
    ) -> None:
        self.tokens = list(tokens)
        self.views = list(views)
        self.referents = list(referents)
        self.interchangeable = [bool(x) for x in interchangeable]
        self._token = {t: i for i, t in enumerate(self.tokens)}
        self._view = {v: i for i, v in enumerate(self.views)}
        self._referent = {r: i for i, r in enumerate(self.referents)}
        self._spelled: dict[tuple[int, str], int] = {}

    # ------------------------------------------------------------- lookups
    def view_id(self, view: str) -> int:
        return self._view.get(view, UNK)

    def referent_id(self, referent: str | None) -> int:
        if referent is None:
            return 0
        return self._referent.get(referent, UNK)

    def token_id(self, text: str, view: str) -> int:
        got = self._token.get(text)
        if got is None:
            got = self._token.get(f"<unk:{view}>", UNK)
        return got

    def __len__(self) -> int:
        return len(self.tokens)

    # -------------------------------------------------------------- building
    @classmethod
    def build(cls, programs: Iterable[Program], *, min_count: int = 1) -> "Vocab":
        """The vocabulary of ``programs``: texts seen at least ``min_count``
        times, every view, every referent, and every spelling a renaming of
        one of the programs can produce (see :func:`vocab_counts`)."""
        return cls.from_counts(vocab_counts(programs), min_count=min_count)

    @classmethod
    def from_counts(cls, counts: "VocabCounts", *, min_count: int = 1) -> "Vocab":
        views = ["<pad>", _UNK_VIEW] + sorted(counts.views)
        referents = ["<none>", "<unk>"] + sorted(counts.referents)
        tokens = ["<pad>", "<unk>"] + [f"<unk:{v}>" for v in sorted(counts.views)]
        kept = sorted(
            (t for t, c in counts.texts.items() if c >= min_count or t in counts.spellings),
            key=lambda t: (-counts.texts.get(t, 0), t),
        )
        tokens += kept
        interchangeable = [False] * (len(tokens) - len(kept)) + [t in counts.named for t in kept]
        return cls(tokens, views, referents, interchangeable)

    # ------------------------------------------------------------ JSON form
    def to_dict(self) -> dict:
        return {
            "tokens": self.tokens,
            "views": self.views,
            "referents": self.referents,
            "interchangeable": self.interchangeable,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "Vocab":
        return cls(data["tokens"], data["views"], data["referents"], data["interchangeable"])

    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class VocabCounts:
    """What :meth:`Vocab.build` counts; counts of several shards add up."""

    texts: Counter
    views: set
    referents: set
    #: texts of tokens that name a referent
    named: set
    #: spellings a renaming can produce (always kept)
    spellings: set

    def update(self, other: "VocabCounts") -> "VocabCounts":
        self.texts.update(other.texts)
        self.views |= other.views
        self.referents |= other.referents
        self.named |= other.named
        self.spellings |= other.spellings
        return self


def add_specials(counts: VocabCounts, texts: Sequence[str] = (BOS, EOS)) -> VocabCounts:
    """Keep ``texts`` (the decoder's :data:`BOS` and :data:`EOS`) in the vocabulary."""
    for text in texts:
        counts.spellings.add(text)
        counts.texts.setdefault(text, 0)
    return counts


def add_pool(counts: VocabCounts, names: Sequence[str], view: str) -> VocabCounts:
    """Put interchangeable ``names`` of ``view`` in the vocabulary, as tokens
    and as referents, whether training saw them or not (each names itself,
    as an LTL AP does)."""
    for name in names:
        counts.referents.add(name)
        counts.named.add(name)
        counts.spellings.add(name)
        counts.texts.setdefault(name, 0)
    counts.views.add(view)
    return counts


def vocab_counts(programs: Iterable[Program]) -> VocabCounts:
    """Count texts, views and referents of ``programs``, with every spelling
    of every admissible renaming target (so the vocabulary is closed under
    renamings)."""
    counts = VocabCounts(Counter(), set(), set(), set(), set())
    for program in programs:
        for tok in program.tokens:
            counts.texts[tok.text] += 1
            counts.views.add(tok.view)
            if tok.referent is not None:
                counts.referents.add(tok.referent)
                counts.named.add(tok.text)
        space = _space(program)
        if space is None:
            continue
        views_of: dict[str, set[str]] = {}
        for tok in program.tokens:
            if tok.referent in space.referents:
                views_of.setdefault(tok.referent, set()).add(tok.view)
        for ref, allowed in zip(space.referents, space.allowed):
            for target in allowed:
                counts.referents.add(target)
                for view in views_of.get(ref, ()):
                    text = space.spell(Token("", "", view, ref, 0, 0), target)
                    counts.spellings.add(text)
                    counts.named.add(text)
                    counts.texts.setdefault(text, 0)
    return counts


def _space(program: Program):
    """The program's renaming space, or None where its language has none."""
    from .errors import InvarError
    from .symmetry.spaces import renaming_space

    try:
        return renaming_space(program)
    except InvarError:
        return None


# ------------------------------------------------------------ encoded program
@dataclass(frozen=True, eq=False)
class Encoded:
    """One program as arrays. T tokens, L lines, E dependency edges, K
    renamable referents."""

    #: language of the frontend that built the program
    lang: str
    #: (T,) token ids
    tokens: np.ndarray
    #: (T,) view ids
    views: np.ndarray
    #: (T,) referent ids, 0 for a token that names nothing
    referents: np.ndarray
    #: (T,) line of each token
    lines: np.ndarray
    #: (T,) position of each token within its line (0 at every line start)
    line_pos: np.ndarray
    #: (L,) DLG layer of each line
    layer: np.ndarray
    #: (E, 2) dependency pairs (i, j): line j stays after line i
    edges: np.ndarray
    #: (K,) referent ids a renaming may move, in enumeration order
    rename_refs: np.ndarray
    #: (K + 1,) offsets into ``rename_targets``: referent k may become
    #: ``rename_targets[rename_offsets[k]:rename_offsets[k + 1]]``
    rename_offsets: np.ndarray
    #: referent ids of the admissible targets, in the frontend's order
    rename_targets: np.ndarray
    #: (T,) token ids of the canonical renaming, or None when not computed
    #: (a renaming keeps it: all renamings share one canonical form; a
    #: permutation drops it)
    canon: np.ndarray | None = None
    #: (T, 2) each token's depth and path bits in its syntax tree (bit k: the
    #: child taken at level k), for tree positions; None when not computed
    #: (a renaming keeps it; a permutation drops it; not kept in disk caches)
    tree: np.ndarray | None = None
    #: (T,) coreference classes: 0 for a token that names nothing, else 1 +
    #: the rank of its referent by first appearance in this program. Unlike
    #: the referent ids, two referents the vocabulary lacks stay apart, so
    #: the referent mask sees the program's own coreference (a renaming keeps
    #: the classes; a permutation moves them with their tokens). None: use
    #: the referent ids
    corefs: np.ndarray | None = None
    #: (T,) bool: the token names a referent outside the program's renaming
    #: space (:attr:`RenamingSpace.referents`): a register pinned by its use
    #: (``%rsp`` under ``push``, ``%rdx`` after ``div``, a shift's ``%cl``),
    #: one of a class no renaming moves (segment, ``%rip``, x87), a Python or
    #: Java name that must keep its spelling. This is wider than
    #: :attr:`Program.pinned` (the frontend's implicit operands and user pins
    #: only): it is what the renaming space leaves fixed, whatever the reason.
    #: Decided from the referents' names when the program is encoded, so it
    #: does not depend on which referents the vocabulary knows; a renaming
    #: keeps it (it changes none of those tokens), a permutation moves it with
    #: its tokens. None: not computed
    pinned: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def n_lines(self) -> int:
        return len(self.layer)

    def allowed(self, k: int) -> np.ndarray:
        return self.rename_targets[self.rename_offsets[k] : self.rename_offsets[k + 1]]

    def same(self, other: "Encoded") -> bool:
        """Field-by-field equality of the arrays."""
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                if a is None or b is None or a.shape != b.shape or not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True


_I = np.int32


def encode(program: Program, vocab: Vocab, *, canonical: bool = False) -> Encoded:
    """Encode ``program`` with ``vocab``; with ``canonical``, also the token
    ids of its canonical renaming (:func:`invar.symmetry.spaces.canonical`)."""
    from .symmetry.dlg import dlg

    toks = program.tokens
    line_pos = np.zeros(len(toks), dtype=_I)
    for k in range(1, len(toks)):
        if toks[k].line == toks[k - 1].line:
            line_pos[k] = line_pos[k - 1] + 1
    graph = dlg(program)
    space = _space(program)
    refs, offsets, targets = [], [0], []
    if space is not None:
        for ref, allowed in zip(space.referents, space.allowed):
            refs.append(vocab.referent_id(ref))
            targets += [vocab.referent_id(t) for t in allowed]
            offsets.append(len(targets))
    movable = set(space.referents) if space is not None else set()
    pinned = np.asarray([t.referent is not None and t.referent not in movable for t in toks], dtype=bool)
    canon = None
    if canonical:
        from .symmetry.spaces import canonical as _canonical

        canon_program = _canonical(program)[0] if space is not None else program
        canon = np.asarray([vocab.token_id(t.text, t.view) for t in canon_program.tokens], dtype=_I)
    return Encoded(
        lang=program.lang,
        tokens=np.asarray([vocab.token_id(t.text, t.view) for t in toks], dtype=_I),
        views=np.asarray([vocab.view_id(t.view) for t in toks], dtype=_I),
        referents=np.asarray([vocab.referent_id(t.referent) for t in toks], dtype=_I),
        lines=np.asarray([t.line for t in toks], dtype=_I),
        line_pos=line_pos,
        layer=np.asarray(graph.layer_of, dtype=_I),
        edges=np.asarray(graph.edges, dtype=_I).reshape(-1, 2),
        rename_refs=np.asarray(refs, dtype=_I),
        rename_offsets=np.asarray(offsets, dtype=_I),
        rename_targets=np.asarray(targets, dtype=_I),
        canon=canon,
        corefs=_first_appearance([t.referent for t in toks]),
        pinned=pinned,
    )


def _first_appearance(keys: Sequence) -> np.ndarray:
    """(T,) 0 where a key is None (or 0), else 1 + the key's rank by first appearance."""
    rank: dict = {}
    return np.asarray([rank.setdefault(k, len(rank) + 1) if k is not None and k != 0 else 0 for k in keys], dtype=_I)


# ------------------------------------------------------------------ renamings
Speller = Callable[[str, str], str]

#: the languages no frontend reads whose renamed tokens read as their targets:
#: copy strings (invar.tasks.copy) and a language model's characters
#: (invar.tasks.lm); an ALTA input has no id-level renaming
TARGET_SPELLED = frozenset({"copy", "chars"})


def _as_target(view: str, target: str) -> str:
    return target


def speller(lang: str) -> Speller:
    """How a token of ``view`` is spelled once its referent becomes
    ``target``: ``spell(view, target) -> text`` (the frontend's rule)."""
    record = frontend_of(lang)
    if record.spell:  # x86: a register's name depends on its view
        return record.hook("spell")
    # a renamed Python, Java or LTL name reads as its target; so does a symbol
    # of a task's own language (copy strings, a language model's characters)
    if record.program_lang == lang or lang in TARGET_SPELLED:  # (hex decodes to x86 programs)
        return _as_target
    raise NoIdRemap(f"no id-level renaming for {lang} programs; encode the renamed program instead")


def renamed(enc: Encoded, renaming, vocab: Vocab, *, spell: Speller | None = None) -> Encoded:
    """``enc`` under ``renaming`` (an :class:`~invar.symmetry.renamings.Renaming`
    or a referent -> target mapping), by id remap: equal to encoding the
    rendered renamed program in every array a model reads (the admissible
    targets, ``rename_targets``, keep their order). Each token of a moved
    referent is spelled anew from its target's name, so a target whose text
    the vocabulary knows (or lacks) gets that text's id whatever the
    referent ids say. Referents the vocabulary lacks all share the unknown
    id, so a renaming that moves one of them has an id remap only where it
    is the program's one unknown referent or where no id changes (an unknown
    name onto another unknown one); otherwise :class:`NoIdRemap`, and the
    caller encodes the renamed program instead."""
    mapping = renaming.as_dict() if hasattr(renaming, "as_dict") else dict(renaming)
    ref_map = np.arange(len(vocab.referents), dtype=_I)
    target_of: dict[int, str] = {}  # source referent id -> the target's name
    spelled = _speller_of(enc, vocab, spell)
    # the tokens of unknown referents, where several share the unknown id (else None)
    shared = np.nonzero(enc.referents == UNK)[0] if _unknown_referents(enc) > 1 else None
    for ref, target in mapping.items():
        if ref != target:
            source, dest = vocab.referent_id(ref), vocab.referent_id(target)
            if source == UNK and shared is not None:
                if dest == UNK and all(spelled(k, target) == enc.tokens[k] for k in shared):
                    continue  # under its new name it is as unknown as before: no array changes
                raise NoIdRemap(
                    f"the renaming moves {ref}, a referent the vocabulary lacks, and others the "
                    "vocabulary lacks share its id: encode the renamed program instead"
                )
            ref_map[source] = dest
            target_of[source] = target
    tokens = enc.tokens.copy()
    if target_of:
        for k in np.nonzero(np.isin(enc.referents, np.fromiter(target_of, dtype=_I)))[0]:
            tokens[k] = spelled(k, target_of[int(enc.referents[k])])
    return replace(enc, tokens=tokens, referents=ref_map[enc.referents], rename_refs=ref_map[enc.rename_refs])


def _speller_of(enc: Encoded, vocab: Vocab, spell: Speller | None) -> Callable[[int, str], int]:
    """``(k, target) ->`` the token id of token ``k`` of ``enc`` spelled as
    ``target`` (memoised on the vocabulary by view and target)."""
    cache = vocab._spelled

    def spelled(k: int, target: str) -> int:
        nonlocal spell
        if enc.views[k] == UNK:  # a view the vocabulary never saw: every spelling of it is unknown too
            return int(enc.tokens[k])
        key = (int(enc.views[k]), target)
        got = cache.get(key)
        if got is None:
            spell = spell or speller(enc.lang)
            view = vocab.views[key[0]]
            got = cache[key] = vocab.token_id(spell(view, target), view)
        return got

    return spelled


def _unknown_referents(enc: Encoded) -> int:
    """How many referents of ``enc`` the vocabulary lacks, at least: the
    renamable ones (one unknown id each in ``rename_refs``), plus one if a
    pinned token has the unknown id (2 where that is not recorded)."""
    if enc.pinned is None:
        return 2
    return int((enc.rename_refs == UNK).sum()) + bool((enc.pinned & (enc.referents == UNK)).any())


def renaming_space_of(enc: Encoded, vocab: Vocab):
    """The renaming space of an encoded program, rebuilt from its arrays, for
    sampling renamings without the program (augmentation, audits)."""
    from .symmetry.renamings import RenamingSpace

    names = vocab.referents
    refs = [names[r] for r in enc.rename_refs]
    allowed = [[names[t] for t in enc.allowed(k)] for k in range(len(refs))]
    empty = Program(lang=enc.lang, lines=(), tokens=())
    return RenamingSpace(empty, refs, allowed, lambda tok, target: target)


# --------------------------------------------------------------- permutations
def permuted(enc: Encoded, order: Sequence[int]) -> Encoded:
    """``enc`` with its lines in ``order`` (``order[new] = old``), by index
    remap; dependencies and layers move with their lines. The canonical ids
    are dropped (a reordering changes the canonical form)."""
    order = np.asarray(getattr(order, "order", order), dtype=np.int64)
    n = enc.n_lines
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError(f"not a permutation of {n} lines: {order.tolist()}")
    new_of = np.empty(n, dtype=_I)
    new_of[order] = np.arange(n, dtype=_I)
    new_lines = new_of[enc.lines]
    idx = np.argsort(new_lines, kind="stable")
    edges = new_of[enc.edges].reshape(-1, 2)
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    referents = enc.referents[idx]
    # renamable referents are enumerated in order of first appearance
    first = {}
    for pos, r in enumerate(referents.tolist()):
        first.setdefault(r, pos)
    rank = sorted(range(len(enc.rename_refs)), key=lambda k: first[int(enc.rename_refs[k])])
    offsets, targets = [0], []
    for k in rank:
        targets += enc.allowed(k).tolist()
        offsets.append(len(targets))
    return replace(
        enc,
        tokens=enc.tokens[idx],
        views=enc.views[idx],
        referents=referents,
        lines=new_lines[idx],
        line_pos=enc.line_pos[idx],
        layer=enc.layer[order],
        edges=edges,
        rename_refs=enc.rename_refs[rank],
        rename_offsets=np.asarray(offsets, dtype=_I),
        rename_targets=np.asarray(targets, dtype=_I),
        canon=None,
        tree=None,
        corefs=None if enc.corefs is None else _first_appearance(enc.corefs[idx].tolist()),
        pinned=None if enc.pinned is None else enc.pinned[idx],
    )


# ------------------------------------------------------------------- batching
def line_mask(enc: Encoded) -> np.ndarray:
    """The SPE symmetry mask over lines, (L, L) bool: one layer, or an edge
    ``i -> j`` (as :func:`invar.symmetry.masks.symmetry_mask`)."""
    mask = enc.layer[:, None] == enc.layer[None, :]
    if len(enc.edges):
        mask[enc.edges[:, 0], enc.edges[:, 1]] = True
    return mask


def collate(batch: Sequence[Encoded], *, canonical: bool = False, symmetry: bool = False, pinned: bool = False) -> dict:
    """Pad ``batch`` into tensors of shape (B, T), T its longest program:
    ``tokens`` (the canonical ids with ``canonical``), ``views``,
    ``referents``, ``corefs`` (each program's coreference classes, or its
    referent ids when it has none), ``line_pos``, ``valid`` (False on padding); with
    ``symmetry``, ``symmetry`` (B, T, T): the line mask expanded to tokens; with
    ``pinned``, ``pinned`` (B, T): the tokens that name a referent no renaming of
    their program moves (:attr:`Encoded.pinned`)."""
    import torch

    n = len(batch)
    T = max(len(e) for e in batch)
    tokens = np.zeros((n, T), dtype=np.int64)
    views = np.zeros((n, T), dtype=np.int64)
    referents = np.zeros((n, T), dtype=np.int64)
    corefs = np.zeros((n, T), dtype=np.int64)
    line_pos = np.zeros((n, T), dtype=np.int64)
    valid = np.zeros((n, T), dtype=bool)
    sym = np.zeros((n, T, T), dtype=bool) if symmetry else None
    pin = np.zeros((n, T), dtype=bool) if pinned else None
    for b, e in enumerate(batch):
        t = len(e)
        ids = e.canon if canonical else e.tokens
        if ids is None:
            raise ValueError(
                "the canonicalized architecture needs canonical ids: encode the program with canonical=True"
            )
        tokens[b, :t] = ids
        views[b, :t] = e.views
        referents[b, :t] = e.referents
        corefs[b, :t] = e.referents if e.corefs is None else e.corefs
        line_pos[b, :t] = e.line_pos
        valid[b, :t] = True
        if symmetry:
            sym[b, :t, :t] = line_mask(e)[np.ix_(e.lines, e.lines)]
        if pinned:
            if e.pinned is None:
                raise ValueError("the pinned-token embedding needs Encoded.pinned: encode the program again")
            pin[b, :t] = e.pinned
    out = {
        "tokens": torch.from_numpy(tokens),
        "views": torch.from_numpy(views),
        "referents": torch.from_numpy(referents),
        "corefs": torch.from_numpy(corefs),
        "line_pos": torch.from_numpy(line_pos),
        "valid": torch.from_numpy(valid),
    }
    if symmetry:
        out["symmetry"] = torch.from_numpy(sym)
    if pinned:
        out["pinned"] = torch.from_numpy(pin)
    return out


def token_parts(vocab: Vocab, view: str) -> tuple[np.ndarray, np.ndarray]:
    """(V,) view ids and (V,) referent ids that each token id names: an
    interchangeable token spelled as its own referent (an AP, a copy symbol)
    names that referent with ``view``; every other token names nothing (0, 0)."""
    views = np.zeros(len(vocab.tokens), dtype=np.int64)
    referents = np.zeros(len(vocab.tokens), dtype=np.int64)
    vid = vocab.view_id(view)
    for i, text in enumerate(vocab.tokens):
        if vocab.interchangeable[i] and text in vocab._referent:
            views[i], referents[i] = vid, vocab._referent[text]
    return views, referents


def never_written(vocab: Vocab) -> np.ndarray:
    """(V,) bool: token ids a decoder never writes (padding, the unknown
    tokens, :data:`BOS`)."""
    out = np.zeros(len(vocab.tokens), dtype=bool)
    for i, text in enumerate(vocab.tokens):
        out[i] = i in (PAD, UNK) or text.startswith("<unk:") or text == BOS
    return out


def collate_pairs(batch: Sequence[Encoded], *, bos: int, eos: int, targets: bool = True) -> dict:
    """Pad pairs (source on line 0, target on line 1) into tensors: the
    source as :func:`collate` pads it (B, S) (with ``tree_depth`` and
    ``tree_bits`` when the encodings carry tree paths), and with ``targets``
    the decoder's input ``dec_in`` (``bos`` then the target) and output
    ``dec_out`` (the target then ``eos``), (B, T + 1), padded with 0."""
    import torch

    src = [np.nonzero(e.lines == 0)[0] for e in batch]
    n, S = len(batch), max(len(i) for i in src)
    arrays = {k: np.zeros((n, S), dtype=np.int64) for k in ("tokens", "views", "referents", "line_pos")}
    valid = np.zeros((n, S), dtype=bool)
    with_tree = all(e.tree is not None for e in batch)
    depth = np.zeros((n, S), dtype=np.int64)
    bits = np.zeros((n, S), dtype=np.int64)
    for b, (e, idx) in enumerate(zip(batch, src)):
        t = len(idx)
        for k in arrays:
            arrays[k][b, :t] = getattr(e, k)[idx]
        valid[b, :t] = True
        if with_tree:
            depth[b, :t], bits[b, :t] = e.tree[idx, 0], e.tree[idx, 1]
    out = {k: torch.from_numpy(v) for k, v in arrays.items()}
    out["valid"] = torch.from_numpy(valid)
    if with_tree:
        out["tree_depth"], out["tree_bits"] = torch.from_numpy(depth), torch.from_numpy(bits)
    if targets:
        tgt = [e.tokens[e.lines == 1] for e in batch]
        T = max(len(t) for t in tgt) + 1
        dec_in = np.zeros((n, T), dtype=np.int64)
        dec_out = np.zeros((n, T), dtype=np.int64)
        for b, t in enumerate(tgt):
            dec_in[b, 0] = bos
            dec_in[b, 1 : len(t) + 1] = t
            dec_out[b, : len(t)] = t
            dec_out[b, len(t)] = eos
        out["dec_in"], out["dec_out"] = torch.from_numpy(dec_in), torch.from_numpy(dec_out)
    return out


# ----------------------------------------------------------------- disk cache
_ARRAYS = (
    "tokens",
    "views",
    "referents",
    "lines",
    "line_pos",
    "layer",
    "edges",
    "rename_refs",
    "rename_offsets",
    "rename_targets",
    "canon",
    "corefs",
    "pinned",
)


def save_encoded(
    path: str | os.PathLike, encoded: Sequence[Encoded], *, extra: Mapping[str, np.ndarray] | None = None
) -> None:
    """Write ``encoded`` to one ``.npz`` file (concatenated arrays with
    offsets), atomically; ``extra`` holds per-example arrays such as labels."""
    data: dict[str, np.ndarray] = {}
    for name in _ARRAYS:
        parts = [getattr(e, name) for e in encoded]
        if name in ("canon", "corefs", "pinned") and any(p is None for p in parts):
            continue
        lengths = [len(p) for p in parts]
        data[name] = np.concatenate(parts) if parts else np.zeros(0, dtype=_I)
        data[name + ".offsets"] = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    data["lang"] = np.asarray([e.lang for e in encoded], dtype=str)
    data["version"] = np.asarray(ENCODING_VERSION)
    for key, value in (extra or {}).items():
        data["extra." + key] = np.asarray(value)
    from .files import write_atomic

    write_atomic(path, lambda f: np.savez(f, **data))


def load_encoded(path: str | os.PathLike) -> tuple[list[Encoded], dict[str, np.ndarray]]:
    """Read what :func:`save_encoded` wrote: the encodings and the extras."""
    with np.load(path, allow_pickle=False) as data:
        if int(data["version"]) != ENCODING_VERSION:
            raise ValueError(f"encoding version {int(data['version'])}, expected {ENCODING_VERSION}")
        arrays = {k: data[k] for k in data.files}
    langs = arrays["lang"]
    out = []
    for i in range(len(langs)):
        kw = {}
        for name in _ARRAYS:
            if name not in arrays:
                kw[name] = None
                continue
            lo, hi = arrays[name + ".offsets"][i], arrays[name + ".offsets"][i + 1]
            part = arrays[name][lo:hi]
            kw[name] = part.reshape(-1, 2) if name == "edges" else part
        out.append(Encoded(lang=str(langs[i]), **kw))
    extra = {k[len("extra.") :]: v for k, v in arrays.items() if k.startswith("extra.")}
    return out, extra


__all__ = [
    "Vocab",
    "VocabCounts",
    "vocab_counts",
    "Encoded",
    "encode",
    "renamed",
    "permuted",
    "renaming_space_of",
    "speller",
    "line_mask",
    "collate",
    "save_encoded",
    "load_encoded",
    "ENCODING_VERSION",
    "PAD",
    "UNK",
    "BOS",
    "EOS",
    "add_specials",
    "add_pool",
    "token_parts",
    "never_written",
    "collate_pairs",
]
