"""A trained model: network, vocabulary, config and task together.

:func:`invar.load_model` returns a :class:`Model`; the audit and every
command that predicts use it. ``predict`` takes programs, ``predict_encoded``
takes encodings (the fast path for variants made by id remap). Programs are
batched by length and padded; padding is masked and pooling averages real
tokens only, so a prediction does not depend on the batch it is in beyond
float rounding.
"""

from __future__ import annotations

from typing import Sequence

import torch

from ..encoding import Encoded, Vocab, collate, encode
from ..errors import ModelError
from ..program import Program
from .config import ModelConfig
from .encoder import Network


class Model:
    """``task``: the task's name; ``config``: the :class:`ModelConfig`;
    ``vocab``: the :class:`~invar.encoding.Vocab`; ``network``: the torch
    module; ``metrics``: what training recorded."""

    def __init__(self, task: str, config: ModelConfig, vocab: Vocab, network: Network | None = None,
                 metrics: dict | None = None) -> None:
        from ..tasks import get_task

        self.task = task
        self.config = config
        self.vocab = vocab
        self.network = network if network is not None else build_network(config, vocab)
        self.metrics = dict(metrics or {})
        self._task = get_task(task)

    # ----------------------------------------------------------- encoding
    def encode(self, program: Program) -> Encoded:
        """The encoding this model reads (with canonical ids when it canonicalizes)."""
        return encode(program, self.vocab, canonical=self.config.canonicalize)

    @property
    def max_len(self) -> int:
        return self.config.max_len

    def fits(self, item: Program | Encoded) -> bool:
        """Whether the model takes ``item`` (at most ``max_len`` tokens)."""
        n = len(item.tokens)
        return 0 < n <= self.config.max_len

    # --------------------------------------------------------- prediction
    def predict(self, programs: Sequence[Program], *, batch_size: int = 64, device: str | None = None) -> list:
        """One prediction per program (a float for ``bhive``). A program
        longer than ``max_len`` tokens is refused with ModelError."""
        for k, p in enumerate(programs):
            if not self.fits(p):
                raise ModelError(
                    f"program {k} ({p.name or 'unnamed'}) has {len(p.tokens)} tokens; this model takes 1 to "
                    f"{self.config.max_len}"
                )
        return self.predict_encoded([self.encode(p) for p in programs], batch_size=batch_size, device=device)

    @torch.inference_mode()
    def predict_encoded(self, encoded: Sequence[Encoded], *, batch_size: int = 64, device: str | None = None) -> list:
        """One prediction per encoding (see :meth:`encode`)."""
        for k, e in enumerate(encoded):
            if not self.fits(e):
                raise ModelError(f"encoding {k} has {len(e)} tokens; this model takes 1 to {self.config.max_len}")
        dev = torch.device(device) if device else next(self.network.parameters()).device
        net = self.network.to(dev)
        was_training = net.training
        net.eval()
        out: list = [None] * len(encoded)
        try:
            for idx in _same_length_batches([len(e) for e in encoded], batch_size):
                batch = to_device(self.collate([encoded[i] for i in idx]), dev)
                for i, y in zip(idx, self._task.output(net(batch))):
                    out[i] = y
        finally:
            net.train(was_training)
        return out

    def collate(self, encoded: Sequence[Encoded]) -> dict:
        """A batch as this model's network reads it."""
        try:
            return collate(encoded, canonical=self.config.canonicalize, symmetry=self.config.attention == "symmetry")
        except ValueError as err:
            raise ModelError(str(err))


def _same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of equal length (no padding at all), at most
    ``batch_size`` each: a program's prediction then never depends on the
    length of the others."""
    by_length: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_length.setdefault(n, []).append(i)
    return [idx[k: k + batch_size] for n in sorted(by_length) for idx in [by_length[n]]
            for k in range(0, len(idx), batch_size)]


def build_network(config: ModelConfig, vocab: Vocab) -> Network:
    """The network of ``config`` sized for ``vocab``; ModelError for a bad config."""
    try:
        config.validate()
    except ValueError as err:
        raise ModelError(f"bad model config: {err}")
    if (config.n_tokens, config.n_views, config.n_referents) != (len(vocab.tokens), len(vocab.views), len(vocab.referents)):
        raise ModelError("the config's vocabulary sizes do not match the vocabulary")
    return Network(config, torch.tensor(vocab.interchangeable, dtype=torch.bool))


def to_device(batch: dict, device: torch.device | str) -> dict:
    return {k: v.to(device, non_blocking=True) for k, v in batch.items()}


__all__ = ["Model", "build_network", "to_device"]
