"""The encoder-decoder: a sequence task's model (``ltl``, ``copy``).

Dimensions:
    B  batch     S  source tokens     T  target tokens

The shared encoder, a decoder on the same blocks and a tied output
projection (:class:`~invar.nn.decoder.Seq2Seq`). A model reads the source
line of each pair and writes the target with beam search (``config.beam``;
1 is greedy decoding), one prediction per pair in the task's form (a trace,
a string). Sources are batched by length, so no source holds padding. An
input naming something outside the model's vocabulary (an AP a ``vanilla``
model never saw) is refused with a ModelError that names it
(:meth:`~invar.nn.wrapper.Model.check_supported`).

A canonicalized model (``canonicalize``, :mod:`invar.nn.canonical`) reads
each source under its canonical renaming, decodes each distinct canonical
source once per set of weights, and maps the written names back into the
input's own: its predictions are exactly alpha-covariant. An example whose
output cannot be mapped back (``restrict_output=False``) gets a
:class:`~invar.nn.canonical.Unmapped` error in place of its prediction.

Training reads pairs (:attr:`reads`), each fitting in ``max_len`` tokens on
both sides, with the network's own loss (teacher forcing: cross-entropy, or
AdaCos); an ``augmented`` model renames each pair into the task's pool of
interchangeable names (its first ``pool_size``) each time it is drawn.
Validation writes the split greedily and reports the task's metric and the
teacher-forced loss. A model of random vectors may try ``random_draws``
seeded tables at the end and keep the one of median validation loss
(:meth:`EncoderDecoder.choose_draw`).
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np
import torch
import torch.nn as nn

from ..encoding import BOS, EOS, UNK, Encoded, Vocab, collate_pairs, never_written, renamed, token_parts
from ..errors import ModelError
from ..program import Program
from .config import ModelConfig
from .wrapper import Model, augment, gathered, same_length_batches, to_device


def pool_of(task, pool_size: int = 0) -> Sequence[str]:
    """The interchangeable names a model of ``task`` holds beyond its
    training data's: the task's pool, or its first ``pool_size`` (0: all)."""
    return task.pool[: pool_size or None]


def augment_into(enc: Encoded, vocab: Vocab, pool: Sequence[str], seed: int) -> Encoded:
    """``enc`` under a uniformly drawn injective map of its renamable names
    into ``pool`` (the ``augmented`` baseline of sequence tasks)."""
    names = [vocab.referents[r] for r in enc.rename_refs]
    if not names or len(names) > len(pool):
        return enc
    targets = random.Random(seed).sample(list(pool), len(names))
    return renamed(enc, dict(zip(names, targets)), vocab)


def source_length(item: Program | Encoded) -> int:
    """The tokens of a pair's source (line 0)."""
    if isinstance(item, Encoded):
        return int((item.lines == 0).sum())
    return sum(1 for t in item.tokens if t.line == 0)


class EncoderDecoder(Model):
    """A :class:`~invar.nn.wrapper.Model` that writes an output sequence for
    each source (the pair's line 0)."""

    heads = ("generate",)
    reads = "pairs"
    targets_in_batch = True
    decodes = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: a canonicalized model's decoded canonical sources (None for every other model)
        self._memo = None
        if self.config.canonicalize:
            from .canonical import Memo

            self._memo = Memo()
            self._referent_of = token_parts(self.vocab, self._task.pool_view)[1]

    @classmethod
    def network_of(cls, config: ModelConfig, vocab: Vocab, task: str | None) -> nn.Module:
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
                raise ModelError(
                    f"a canonicalized {task} model's vocabulary must hold the whole pool of canonical "
                    f"names; it lacks {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''} "
                    "(build it with invar.encoding.add_pool)"
                )
        interchangeable = torch.tensor(vocab.interchangeable, dtype=torch.bool)
        return Seq2Seq(
            config,
            interchangeable,
            torch.from_numpy(views),
            torch.from_numpy(referents),
            torch.from_numpy(never_written(vocab)),
        )

    # ------------------------------------------------------------ reading
    def length_of(self, item: Program | Encoded) -> int:
        return source_length(item)

    def unsupported(self, item: Program | Encoded) -> list[str]:
        """The names in ``item``'s source that the vocabulary does not hold
        (``?`` for each, from an encoding), in order of first appearance."""
        if isinstance(item, Encoded):
            return ["?"] * int((item.referents[item.lines == 0] == UNK).sum())
        known = set(self.vocab.referents[2:])
        return list(
            dict.fromkeys(
                t.referent for t in item.tokens if t.line == 0 and t.referent is not None and t.referent not in known
            )
        )

    def _check_vocabulary(self, item: Program | Encoded, what: str) -> None:
        bad = self.unsupported(item)
        kind = {"ap": "AP", "sym": "symbol"}.get(self._task.pool_view, "name")
        known = sorted(r for r, ok in zip(self.vocab.tokens, self.vocab.interchangeable) if ok)
        if not bad:
            if self._memo is not None and self._canonical_outside(item):
                raise ModelError(
                    f"{what} uses {_distinct_names(item)} distinct {kind}s, more than the canonical names "
                    f"this canonicalized model's vocabulary holds ({len(known)}: {', '.join(known)})"
                )
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

    def _check_encoding(self, k: int, enc: Encoded) -> None:
        if self._memo is not None and enc.canon is None:
            raise ModelError(f"encoding {k} has no canonical ids: encode it with Model.encode")

    def collate(self, encoded: Sequence[Encoded]) -> dict:
        """A batch as the network reads it, with the decoder's input and
        output for teacher forcing (a canonicalized model's source and target
        under the source's canonical renaming)."""
        if self._memo is not None:
            from .canonical import canonical_pair

            encoded = [canonical_pair(e, self._referent_of) for e in encoded]
        return collate_pairs(encoded, bos=self._bos, eos=self._eos, targets=True)

    @property
    def _bos(self) -> int:
        return self.vocab.token_id(BOS, BOS)

    @property
    def _eos(self) -> int:
        return self.vocab.token_id(EOS, EOS)

    # --------------------------------------------------------- prediction
    def _predict(
        self,
        net: nn.Module,
        encoded: Sequence[Encoded],
        dev: torch.device,
        batch_size: int,
        beam: int,
        along: Sequence[Encoded] | None,
    ) -> list:
        if self._memo is not None:
            return self._predict_canonical(net, encoded, dev, beam, batch_size)
        return super()._predict(net, encoded, dev, batch_size, beam, along)

    def _forward(self, net, items: Sequence[Encoded], dev, beam: int) -> list[list[str]]:
        """The generated sequences, as tokens."""
        return [[self.vocab.tokens[i] for i in seq] for seq in self._generate_ids(net, items, dev, beam)]

    def _generate_ids(self, net, items: Sequence[Encoded], dev, beam: int) -> list[list[int]]:
        from .generate import generate

        batch = to_device(collate_pairs(items, bos=self._bos, eos=self._eos, targets=False), dev)
        return generate(
            net, batch, beam=beam, bos=self._bos, eos=self._eos, max_len=self.config.max_output or self.config.max_len
        )

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
        for idx in same_length_batches([source_length(todo[k]) for k in pending], batch_size):
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

    # ----------------------------------------------------------- training
    @staticmethod
    def fits_training(enc: Encoded, max_len: int) -> bool:
        """A pair whose source and target (with ``<eos>``) fit in ``max_len`` tokens."""
        source = source_length(enc)
        return 0 < source <= max_len and len(enc) - source + 1 <= max_len

    @classmethod
    def completed(cls, config: ModelConfig, train: Sequence[Encoded]) -> ModelConfig:
        """The longest output written, when not set: twice the longest
        training target (with ``<eos>``), at most ``max_len``."""
        if config.max_output:
            return config
        longest = max(len(e) - source_length(e) for e in train) + 1
        return replace(config, max_output=min(config.max_len, 2 * longest))

    def augmented(self, items: Sequence[Encoded], seed: Callable[[int], int]) -> list[Encoded]:
        """For an ``augmented`` model each pair renamed into the names beyond
        the training data's (:func:`pool_of`; for a task without a pool, under a
        renaming of its own). (Not a ``pool`` attribute: the audit reads a
        model's ``pool`` as the names its variants rename into.)"""
        if not self.config.augment:
            return list(items)
        pool = pool_of(self._task, self.config.pool_size)
        if pool:
            return [augment_into(e, self.vocab, pool, seed(k)) for k, e in enumerate(items)]
        return [augment(e, self.vocab, seed(k)) for k, e in enumerate(items)]

    @torch.no_grad()
    def pair_loss(self, encoded: list[Encoded], dev, batch_size: int = 256) -> float:
        """The teacher-forced loss over ``encoded``, averaged over target tokens."""
        net = self.network
        was = net.training
        net.eval()
        total = tokens = 0.0
        try:
            for lo in range(0, len(encoded), batch_size):
                batch = to_device(self.collate(encoded[lo : lo + batch_size]), dev)
                n = float((batch["dec_out"] > 0).sum())
                total += float(net.loss(net(batch), batch)) * n
                tokens += n
        finally:
            net.train(was)
        return total / tokens if tokens else float("nan")

    @torch.no_grad()
    def validate(
        self, encoded: list[Encoded], labels: Any, dev: torch.device, rank: int, world: int
    ) -> tuple[float, float]:
        """(the task's metric of greedy predictions, the teacher-forced loss)."""
        mine = list(range(rank, len(encoded), world))
        items = [encoded[i] for i in mine]
        preds = self.predict_encoded(items, batch_size=256, device=str(dev), beam=1) if mine else []
        loss = self.pair_loss(items, dev) if mine else float("nan")
        if world == 1:
            return self._task.metric(preds, [labels[i] for i in mine]), loss
        together, losses = gathered(mine, preds, len(encoded), loss)
        losses = [x for x in losses if not math.isnan(x)]
        return self._task.metric(together, labels), float(np.mean(losses)) if losses else float("nan")

    def choose_draw(self, encoded: list[Encoded], dev: torch.device) -> dict:
        """The interchangeable-token paper's heuristic for random embeddings:
        try the tables of ``random_draws`` seeds on ``encoded`` (the
        validation split) and keep the one of median loss; the config then
        names its seed. What was tried, as the metrics record it."""
        self.network.to(dev)
        config = self.config
        seeds = [config.seed + k for k in range(config.random_draws)]
        losses = []
        for s in seeds:
            self.network.encoder.embed.reseed(s)
            losses.append(self.pair_loss(encoded, dev))
        order = sorted(range(len(seeds)), key=lambda k: (losses[k], seeds[k]))
        chosen = seeds[order[(len(order) - 1) // 2]]
        self.network.encoder.embed.reseed(chosen)
        self.config = replace(config, seed=chosen)
        self.metrics["random_draws"] = {"seeds": seeds, "valid_losses": losses, "chosen": chosen}
        return self.metrics["random_draws"]


def _distinct_names(item: Program | Encoded) -> int:
    if isinstance(item, Encoded):
        return len(set(item.referents[(item.lines == 0) & (item.referents != 0)].tolist()))
    return len({t.referent for t in item.tokens if t.line == 0 and t.referent is not None})


__all__ = ["EncoderDecoder", "pool_of", "augment_into", "source_length"]
