"""The causal language model: the ``lm`` task's model.

Dimensions:
    B  batch     T  tokens (padded)     V  token ids

The decoder-only network of :mod:`invar.nn.lm` (causal blocks with rotary
positions, a tied output projection). A prediction is a sequence's mean
next-token loss; a sequence needs two tokens at least (the first is never
predicted). A lexinvariant model with a random table reads a lexically
permuted sequence with its table permuted along (:attr:`CausalLM.along_table`,
the audit's ``--lexinvariant-table along``).

Training reads the task's windows like programs (encoded once and cached),
``max_len`` defaulting to the dataset's sequence length, with the network's
own loss (next-token cross-entropy); validation gives the perplexity over
every predicted position of the split, and the mean loss.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import torch
import torch.nn as nn

from ..encoding import Encoded, Vocab
from ..errors import ModelError
from .config import ModelConfig
from .wrapper import Model, to_device

_NOT_ALONG = (
    "its token ids are no one-to-one map of the original's random ones (a renaming into or out of names "
    "the vocabulary lacks, which share its unknown id): no table can be permuted along it"
)


class CausalLM(Model):
    """A :class:`~invar.nn.wrapper.Model` that predicts each next token of a sequence."""

    heads = ("lm",)
    targets_in_batch = True
    min_tokens = 1  # the first token is never predicted: one token alone has no loss

    @classmethod
    def network_of(cls, config: ModelConfig, vocab: Vocab, task: str | None) -> nn.Module:
        from .lm import LanguageModel

        return LanguageModel(config, torch.tensor(vocab.interchangeable, dtype=torch.bool))

    @property
    def along_table(self) -> bool:
        return bool(getattr(self.network, "random_table", False))

    def _predict_along(self, net, items: Sequence[Encoded], originals: Sequence[Encoded], dev) -> list:
        from .lm import along

        if any(len(o) != len(e) for o, e in zip(originals, items)):
            raise ModelError("along: an encoding and its original differ in length")
        batch = to_device(self.collate(items), dev)
        first = to_device(self.collate(originals), dev)["tokens"]
        batch["along"], ok = along(first, batch["tokens"], batch["valid"], net.embed.random_ids)
        out = self._task.output(net(batch))
        return [y if good else ModelError(_NOT_ALONG) for y, good in zip(out, ok.tolist())]

    # ----------------------------------------------------------- training
    @staticmethod
    def default_max_len(data: Any) -> int:
        """The dataset's sequence length: a window is the longest sequence."""
        from ..tasks.lm import meta_of

        return int(meta_of(data)["seq_len"])

    @torch.no_grad()
    def validate(
        self, encoded: list[Encoded], labels: Any, dev: torch.device, rank: int, world: int
    ) -> tuple[float, float]:
        """(perplexity, mean loss) over every predicted position of ``encoded``."""
        from .lm import position_losses

        mine = [encoded[i] for i in range(rank, len(encoded), world)]
        losses = position_losses(self.network, mine, batch_size=64, device=dev)
        total, count = float(sum(x.sum() for x in losses)), float(sum(len(x) for x in losses))
        if world > 1:
            import torch.distributed as dist

            both = torch.tensor([total, count], dtype=torch.float64, device=dev)
            dist.all_reduce(both)
            total, count = float(both[0]), float(both[1])
        loss = total / count if count else float("nan")
        return math.exp(loss), loss


__all__ = ["CausalLM"]
