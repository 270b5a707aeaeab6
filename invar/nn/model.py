"""A trained model: network, vocabulary, config and task together.

:func:`invar.load_model` returns a :class:`Model`; the audit and every
command that predicts use it. ``predict`` takes programs, ``predict_encoded``
takes encodings (the fast path for variants made by id remap). Programs are
batched by length and padded; padding is masked and pooling averages real
tokens only, so a prediction does not depend on the batch it is in beyond
float rounding.

A model of a sequence task (``head="generate"``: ``ltl``, ``copy``) reads the
source line of each pair and writes the target with beam search
(``config.beam``; 1 is greedy decoding), one prediction per pair in the
task's form (a trace, a string). Sources are batched by length, so no
source holds padding. An input naming something outside the model's
vocabulary (an AP a ``vanilla`` model never saw) is refused with a
ModelError that names it (:meth:`Model.check_supported`).

A canonicalized sequence model (``canonicalize``, :mod:`invar.nn.canonical`)
reads each source under its canonical renaming, decodes each distinct
canonical source once per set of weights, and maps the written names back
into the input's own: its predictions are exactly alpha-covariant. An
example whose output cannot be mapped back (``restrict_output=False``) gets
a :class:`~invar.nn.canonical.Unmapped` error in place of its prediction.
"""

from __future__ import annotations

from typing import Sequence

import torch

from dataclasses import replace

from ..encoding import BOS, EOS, UNK, Encoded, Vocab, collate, collate_pairs, encode, never_written, token_parts
from ..errors import InvarError, ModelError
from ..program import Program
from .config import ModelConfig
from .encoder import Network


class Model:
    """``task``: the task's name; ``config``: the :class:`ModelConfig`;
    ``vocab``: the :class:`~invar.encoding.Vocab`; ``network``: the torch
    module; ``metrics``: what training recorded; ``labels``: the names of
    the outputs when the dataset named them (``names``: subtokens);
    ``languages``: the languages it was trained on, the only ones it reads
    (default: none named, and then nothing is refused by language; a
    checkpoint always names them, see :func:`invar.checkpoint.load_model`)."""

    def __init__(self, task: str, config: ModelConfig, vocab: Vocab, network: Network | None = None,
                 metrics: dict | None = None, labels: Sequence[str] | None = None,
                 languages: Sequence[str] | None = None) -> None:
        from ..tasks import get_task

        self.task = task
        self.config = config
        self.vocab = vocab
        self.network = network if network is not None else build_network(config, vocab, task)
        self.metrics = dict(metrics or {})
        self._task = get_task(task)
        self.labels = list(labels) if labels is not None else None
        self.languages = tuple(sorted(languages or ()))
        #: a canonicalized sequence model's decoded canonical sources (None for every other model)
        self._memo = None
        if config.generates and config.canonicalize:
            from .canonical import Memo

            self._memo = Memo()
            self._referent_of = token_parts(vocab, self._task.pool_view)[1]
        if self._task.labels_of is not None and (self.labels is None or len(self.labels) != config.n_labels):
            raise ModelError(f"a {task} model needs the names of its {config.n_labels} labels")

    # ----------------------------------------------------------- encoding
    def encode(self, program: Program) -> Encoded:
        """The encoding this model reads (with canonical ids when it
        canonicalizes; a sequence task's program as the task prepares it,
        with tree paths for tree positions)."""
        if self._task.prepare is not None:
            try:
                program = self._task.prepare(program)
            except InvarError as err:
                raise ModelError(f"cannot prepare the input: {err.message}")
        enc = encode(program, self.vocab, canonical=self.config.canonicalize)
        if self.config.positions == "tree" and self._task.tree is not None:
            enc = replace(enc, tree=self._task.tree(program))
        return enc

    @property
    def max_len(self) -> int:
        return self.config.max_len

    def _source_length(self, item: Program | Encoded) -> int:
        if isinstance(item, Encoded):
            return int((item.lines == 0).sum())
        return sum(1 for t in item.tokens if t.line == 0)

    def fits(self, item: Program | Encoded) -> bool:
        """Whether the model takes ``item`` (at most ``max_len`` tokens; for a
        sequence task, in the source line)."""
        n = self._source_length(item) if self.config.generates else len(item.tokens)
        return (1 if self.config.head == "lm" else 0) < n <= self.config.max_len  # an LM predicts from token 2 on

    def unsupported(self, item: Program | Encoded) -> list[str]:
        """The names in ``item``'s source that the vocabulary does not hold
        (``?`` for each, from an encoding), in order of first appearance;
        only sequence tasks refuse them."""
        if not self.config.generates:
            return []
        if isinstance(item, Encoded):
            return ["?"] * int((item.referents[item.lines == 0] == UNK).sum())
        known = set(self.vocab.referents[2:])
        return list(dict.fromkeys(t.referent for t in item.tokens
                                  if t.line == 0 and t.referent is not None and t.referent not in known))

    def check_supported(self, item: Program | Encoded, what: str = "the input") -> None:
        """ModelError when ``item`` is in a language the model was not
        trained on, or names things outside the vocabulary (naming them)."""
        if self.languages and item.lang not in self.languages:
            from ..data.manifest import shown

            raise ModelError(f"{what} is in {shown([item.lang])}; this {self.task} model was trained on "
                             f"{shown(self.languages)} only")
        bad = self.unsupported(item)
        kind = {"ap": "AP", "sym": "symbol"}.get(self._task.pool_view, "name")
        known = sorted(r for r, ok in zip(self.vocab.tokens, self.vocab.interchangeable) if ok)
        if not bad:
            if self._memo is not None and self._canonical_outside(item):
                raise ModelError(
                    f"{what} uses {self._distinct_names(item)} distinct {kind}s, more than the canonical names "
                    f"this canonicalized model's vocabulary holds ({len(known)}: {', '.join(known)})")
            return
        names = ", ".join(b for b in bad if b != "?")
        raise ModelError(
            f"{what} uses {kind}{'s' if len(bad) > 1 else ''} {names or 'unknown to it'} outside this "
            f"{self.config.arch} model's vocabulary ({', '.join(known) or 'none'}): unsupported; "
            "an extendable architecture (dualpart, lexinvariant, or augmented over a larger pool) reads them"
        )

    def _canonical_outside(self, item: Program | Encoded) -> bool:
        """Whether a canonical name of ``item``'s source is outside the vocabulary."""
        if isinstance(item, Encoded):
            if item.canon is None:
                return False  # refused when predicted: it has no canonical ids
            named = (item.lines == 0) & (item.referents != 0)
            return not all(self.vocab.interchangeable[c] for c in item.canon[named].tolist())
        from ..symmetry.spaces import canonical

        names = {t.text for t in canonical(item)[0].tokens if t.line == 0 and t.referent is not None}
        return any(not self.vocab.interchangeable[self.vocab.token_id(n, self._task.pool_view)] for n in names)

    @staticmethod
    def _distinct_names(item: Program | Encoded) -> int:
        if isinstance(item, Encoded):
            return len(set(item.referents[(item.lines == 0) & (item.referents != 0)].tolist()))
        return len({t.referent for t in item.tokens if t.line == 0 and t.referent is not None})

    # --------------------------------------------------------- prediction
    def predict(self, programs: Sequence[Program], *, batch_size: int = 64, device: str | None = None) -> list:
        """One prediction per program (a float for ``bhive``). A program
        longer than ``max_len`` tokens is refused with ModelError."""
        for k, p in enumerate(programs):
            if not self.fits(p):
                n = self._source_length(p) if self.config.generates else len(p.tokens)
                raise ModelError(
                    f"program {k} ({p.name or 'unnamed'}) has {n} tokens; this model takes 1 to "
                    f"{self.config.max_len}"
                )
            self.check_supported(p, f"program {k} ({p.name or 'unnamed'})")
        return self.predict_encoded([self.encode(p) for p in programs], batch_size=batch_size, device=device)

    @torch.inference_mode()
    def predict_encoded(self, encoded: Sequence[Encoded], *, batch_size: int = 64, device: str | None = None,
                        beam: int | None = None, along: Sequence[Encoded] | None = None) -> list:
        """One prediction per encoding (see :meth:`encode`); ``beam``
        overrides the config's beam width for sequence tasks. A
        canonicalized sequence model puts an :class:`~invar.nn.canonical.Unmapped`
        error in place of an output it cannot map back into its input's names.
        ``along`` (a language model with a random table: :attr:`along_table`):
        each encoding's original, token for token; the encoding is read with
        the table permuted along the map from its original's ids to its own
        (:func:`invar.nn.lm.along`), and one that is no one-to-one map of
        random ids gets a ModelError in place of its prediction."""
        if along is not None and (not self.along_table or len(along) != len(encoded)):
            raise ModelError("along: for a language model with a random table, one original per encoding")
        for k, e in enumerate(encoded):
            if not self.fits(e):
                raise ModelError(f"encoding {k} has {len(e)} tokens; this model takes 1 to {self.config.max_len}")
            if self._memo is not None and e.canon is None:
                raise ModelError(f"encoding {k} has no canonical ids: encode it with Model.encode")
            self.check_supported(e, f"encoding {k}")
        dev = torch.device(device) if device else next(self.network.parameters()).device
        net = self.network.to(dev)
        was_training = net.training
        net.eval()
        if self._memo is not None:
            try:
                return self._predict_canonical(net, encoded, dev, beam or self.config.beam, batch_size)
            finally:
                net.train(was_training)
        out: list = [None] * len(encoded)
        lengths = [self._source_length(e) for e in encoded] if self.config.generates else [len(e) for e in encoded]
        try:
            for idx in _same_length_batches(lengths, batch_size):
                items = [encoded[i] for i in idx]
                if self.config.generates:
                    ys = self._task.output(self._generate(net, items, dev, beam or self.config.beam))
                elif along is not None:
                    ys = self._predict_along(net, items, [along[i] for i in idx], dev)
                else:
                    raw = net(to_device(self.collate(items), dev))
                    ys = self._task.output(raw) if self.labels is None else self._task.output(raw, self.labels)
                for i, y in zip(idx, ys):
                    out[i] = y
        finally:
            net.train(was_training)
        return out

    @property
    def along_table(self) -> bool:
        """Whether this is a language model whose table a lexical permutation
        can carry along (a random table: pure lexinvariant)."""
        return self.config.head == "lm" and bool(getattr(self.network, "random_table", False))

    def _predict_along(self, net, items: Sequence[Encoded], originals: Sequence[Encoded], dev) -> list:
        from .lm import along

        if any(len(o) != len(e) for o, e in zip(originals, items)):
            raise ModelError("along: an encoding and its original differ in length")
        batch = to_device(self.collate(items), dev)
        first = to_device(self.collate(originals), dev)["tokens"]
        batch["along"], ok = along(first, batch["tokens"], batch["valid"], net.embed.random_ids)
        out = self._task.output(net(batch))
        return [y if good else ModelError(_NOT_ALONG)
                for y, good in zip(out, ok.tolist())]

    def _generate(self, net, items: Sequence[Encoded], dev, beam: int) -> list[list[str]]:
        return [[self.vocab.tokens[i] for i in seq] for seq in self._generate_ids(net, items, dev, beam)]

    def _generate_ids(self, net, items: Sequence[Encoded], dev, beam: int) -> list[list[int]]:
        from .generate import generate

        bos, eos = self.vocab.token_id(BOS, BOS), self.vocab.token_id(EOS, EOS)
        batch = to_device(collate_pairs(items, bos=bos, eos=eos, targets=False), dev)
        return generate(net, batch, beam=beam, bos=bos, eos=eos, max_len=self.config.max_output or self.config.max_len)

    def _predict_canonical(self, net, encoded: Sequence[Encoded], dev, beam: int, batch_size: int) -> list:
        """Each distinct canonical source decoded once (for these weights:
        :class:`~invar.nn.canonical.Memo`), its output mapped back into each
        input's names; an output that cannot be is that example's error."""
        from .canonical import back_map, canonical_pair, map_back, source_key, weights_stamp

        memo = self._memo
        memo.bind(weights_stamp(net))
        max_out = self.config.max_output or self.config.max_len
        keys = [(source_key(e), beam, max_out) for e in encoded]
        todo: dict = {}
        for key, e in zip(keys, encoded):
            if key not in memo.table and key not in todo:
                todo[key] = canonical_pair(e, self._referent_of)
        pending = list(todo)
        for idx in _same_length_batches([self._source_length(todo[k]) for k in pending], batch_size):
            for i, ids in zip(idx, self._generate_ids(net, [todo[pending[i]] for i in idx], dev, beam)):
                memo.table[pending[i]] = ids
        out: list = []
        for key, e in zip(keys, encoded):
            try:
                ids = map_back(memo.table[key], back_map(e), self.vocab.interchangeable, self.vocab.tokens)
            except ModelError as err:
                out.append(err)
                continue
            out.append(self._task.output([[self.vocab.tokens[i] for i in ids]])[0])
        return out

    def collate(self, encoded: Sequence[Encoded]) -> dict:
        """A batch as this model's network reads it (for sequence tasks, with
        the decoder's input and output for teacher forcing)."""
        if self.config.generates:
            bos, eos = self.vocab.token_id(BOS, BOS), self.vocab.token_id(EOS, EOS)
            if self._memo is not None:  # source and target under the source's canonical renaming
                from .canonical import canonical_pair

                encoded = [canonical_pair(e, self._referent_of) for e in encoded]
            return collate_pairs(encoded, bos=bos, eos=eos, targets=True)
        try:
            return collate(encoded, canonical=self.config.canonicalize, symmetry=self.config.uses_symmetry,
                           pinned=self.config.pinned_tokens == "token")
        except ValueError as err:
            raise ModelError(str(err))


_NOT_ALONG = ("its token ids are no one-to-one map of the original's random ones (a renaming into or out of names "
              "the vocabulary lacks, which share its unknown id): no table can be permuted along it")


def _same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of equal length (no padding at all), at most
    ``batch_size`` each: a program's prediction then never depends on the
    length of the others."""
    by_length: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_length.setdefault(n, []).append(i)
    return [idx[k: k + batch_size] for n in sorted(by_length) for idx in [by_length[n]]
            for k in range(0, len(idx), batch_size)]


def build_network(config: ModelConfig, vocab: Vocab, task: str | None = None) -> Network:
    """The network of ``config`` sized for ``vocab``; ModelError for a bad
    config. An encoder-decoder (``head="generate"``) needs its ``task``: the
    view of the task's interchangeable names builds the output rows."""
    try:
        config.validate()
    except ValueError as err:
        raise ModelError(f"bad model config: {err}")
    if (config.n_tokens, config.n_views, config.n_referents) != (len(vocab.tokens), len(vocab.views), len(vocab.referents)):
        raise ModelError("the config's vocabulary sizes do not match the vocabulary")
    interchangeable = torch.tensor(vocab.interchangeable, dtype=torch.bool)
    if config.head == "lm":
        from .lm import LanguageModel

        return LanguageModel(config, interchangeable)
    if not config.generates:
        return Network(config, interchangeable)
    from ..tasks import get_task
    from .decoder import Seq2Seq

    if task is None:
        raise ModelError("an encoder-decoder is built for a task: name it")
    the_task = get_task(task)
    if the_task.head != "generate":
        raise ModelError(f"head='generate' is for sequence tasks (ltl, copy), not {task}")
    if vocab.token_id(BOS, BOS) == UNK or vocab.token_id(EOS, EOS) == UNK:
        raise ModelError(f"the vocabulary has no {BOS} and {EOS} tokens: build it with invar.encoding.add_specials")
    views, referents = token_parts(vocab, the_task.pool_view)
    if config.canonicalize:  # the canonical names are the pool's: all of them must be readable and writable
        missing = [n for n in the_task.pool if not referents[vocab.token_id(n, the_task.pool_view)]]
        if missing:
            raise ModelError(f"a canonicalized {task} model's vocabulary must hold the whole pool of canonical "
                             f"names; it lacks {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''} "
                             "(build it with invar.encoding.add_pool)")
    return Seq2Seq(config, interchangeable, torch.from_numpy(views), torch.from_numpy(referents),
                   torch.from_numpy(never_written(vocab)))


def to_device(batch: dict, device: torch.device | str) -> dict:
    return {k: v.to(device, non_blocking=True) for k, v in batch.items()}


__all__ = ["Model", "build_network", "to_device"]
