"""What every kind of model shares: a network with its vocabulary, config and task.

Dimensions:
    B  batch     T  tokens (padded)

:func:`invar.load_model` returns a :class:`Model`; the audit and every
command that predicts use it. ``predict`` takes programs, ``predict_encoded``
takes encodings (the fast path for variants made by id remap). Programs are
batched by equal length, so a prediction does not depend on the batch it is
in beyond float rounding.

A model is of one kind, one subclass each, as x-transformers gives each kind
its own wrapper around the shared blocks: a pooled encoder
(:class:`~invar.nn.pooled.PooledEncoder`: heads ``regression``,
``multilabel``, ``binary``), an encoder-decoder
(:class:`~invar.nn.encoder_decoder.EncoderDecoder`: ``generate``) and a
causal language model (:class:`~invar.nn.causal_lm.CausalLM`: ``lm``).
``Model(task, config, vocab, …)`` makes the kind that serves
``config.head``, as ``pathlib.Path(…)`` makes the path of its system; each
kind registers itself here by the heads it names (:attr:`Model.heads`).

A kind has its own network (:meth:`Model.network_of`), batch
(:meth:`Model.collate`), output (:meth:`Model._forward`, :meth:`Model._output`), training loss
(:meth:`Model.loss`) and validation (:meth:`Model.validate`), and says how
training reads its data (:attr:`Model.reads`, :meth:`Model.fits_training`,
:meth:`Model.completed`): training asks the model and never which kind it is.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable, ClassVar, Iterable, Sequence

import numpy as np
import torch
import torch.nn as nn

from ..encoding import Encoded, Vocab, collate, encode, renamed, renaming_space_of
from ..errors import InvarError, ModelError
from ..program import Program
from .config import ModelConfig

#: head -> the kind of model that serves it (each kind registers itself: :meth:`Model.__init_subclass__`)
_KINDS: dict[str, type["Model"]] = {}


def kind_of(head: str) -> type["Model"]:
    """The kind of model (a subclass of :class:`Model`) that serves ``head``."""
    if head not in _KINDS:
        raise ModelError(f"no kind of model serves head={head!r} (heads: {', '.join(_KINDS)})")
    return _KINDS[head]


def checked(config: ModelConfig, vocab: Vocab | None = None) -> ModelConfig:
    """``config``, validated (and sized for ``vocab``); ModelError otherwise."""
    try:
        config.validate()
    except ValueError as err:
        raise ModelError(f"bad model config: {err}")
    sizes = (config.n_tokens, config.n_views, config.n_referents)
    if vocab is not None and sizes != (len(vocab.tokens), len(vocab.views), len(vocab.referents)):
        raise ModelError("the config's vocabulary sizes do not match the vocabulary")
    return config


def build_network(config: ModelConfig, vocab: Vocab, task: str | None = None) -> nn.Module:
    """The network of ``config`` sized for ``vocab``; ModelError for a bad
    config. An encoder-decoder (``head="generate"``) needs its ``task``: the
    view of the task's interchangeable names builds the output rows."""
    return kind_of(checked(config, vocab).head).network_of(config, vocab, task)


class Model:
    """``task``: the task's name; ``config``: the :class:`ModelConfig`;
    ``vocab``: the :class:`~invar.encoding.Vocab`; ``network``: the torch
    module; ``metrics``: what training recorded; ``labels``: the names of
    the outputs when the dataset named them (``names``: subtokens);
    ``languages``: the languages it was trained on, the only ones it reads
    (default: none named, and then nothing is refused by language; a
    checkpoint always names them, see :func:`invar.checkpoint.load_model`)."""

    #: the config heads this kind serves (a subclass registers itself for them)
    heads: ClassVar[tuple[str, ...]] = ()
    #: what a dataset is encoded as for this kind: ``programs`` (encoded once and cached) or ``pairs``
    reads: ClassVar[str] = "programs"
    #: whether the network finds its training targets in the batch (else the task's loss takes the labels)
    targets_in_batch: ClassVar[bool] = False
    #: a program of at most this many tokens is too short to predict from
    min_tokens: ClassVar[int] = 0
    #: whether its predictions are decoded sequences (a beam width applies)
    decodes: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for head in cls.heads:
            _KINDS[head] = cls

    def __new__(cls, *args: Any, **kwargs: Any) -> "Model":
        if cls is Model:  # Model(task, config, …): the kind of the config's head (a kind, or a copy, is itself)
            config = kwargs["config"] if "config" in kwargs else args[1]
            if config.head not in _KINDS:
                checked(config)  # a head no kind serves is a bad config: say so as building it would
            cls = kind_of(config.head)
        return super().__new__(cls)

    def __init__(
        self,
        task: str,
        config: ModelConfig,
        vocab: Vocab,
        network: nn.Module | None = None,
        metrics: dict | None = None,
        labels: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
    ) -> None:
        from ..tasks import get_task

        self.task = task
        self.config = config
        self.vocab = vocab
        self.network = network if network is not None else build_network(config, vocab, task)
        self.metrics = dict(metrics or {})
        self._task = get_task(task)
        self.labels = list(labels) if labels is not None else None
        self.languages = tuple(sorted(languages or ()))
        if self._task.labels_of is not None and (self.labels is None or len(self.labels) != config.n_labels):
            raise ModelError(f"a {task} model needs the names of its {config.n_labels} labels")
        if self._task.labels_of is None and labels is not None:
            raise ModelError(f"a {task} model has no named labels (given {len(self.labels)})")
        if self.labels is not None and not all(isinstance(x, str) for x in self.labels):
            raise ModelError(f"a {task} model's labels are names, not {self.labels[:3]!r}")

    @classmethod
    def network_of(cls, config: ModelConfig, vocab: Vocab, task: str | None) -> nn.Module:
        """The kind's network for a checked ``config`` (:func:`build_network`)."""
        raise NotImplementedError

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

    def length_of(self, item: Program | Encoded) -> int:
        """The tokens of ``item`` the model reads (for a sequence task, its source's)."""
        return len(item.tokens)

    def fits(self, item: Program | Encoded) -> bool:
        """Whether the model takes ``item``: more than :attr:`min_tokens` and
        at most ``max_len`` tokens (:meth:`length_of`)."""
        return self.min_tokens < self.length_of(item) <= self.config.max_len

    def unsupported(self, item: Program | Encoded) -> list[str]:
        """The names in ``item``'s source that the vocabulary does not hold,
        in order of first appearance; only sequence models refuse them."""
        return []

    def check_supported(self, item: Program | Encoded, what: str = "the input") -> None:
        """ModelError when ``item`` is in a language the model was not
        trained on, or names things outside the vocabulary (naming them)."""
        if self.languages and item.lang not in self.languages:
            from ..data.manifest import shown

            raise ModelError(
                f"{what} is in {shown([item.lang])}; this {self.task} model was trained on {shown(self.languages)} only"
            )
        self._check_vocabulary(item, what)

    def _check_vocabulary(self, item: Program | Encoded, what: str) -> None:
        """ModelError when ``item`` names what the vocabulary cannot read (a kind that refuses such names)."""

    def _check_encoding(self, k: int, enc: Encoded) -> None:
        """ModelError when encoding ``k`` lacks what this kind reads."""

    # --------------------------------------------------------- prediction
    def predict(
        self, programs: Iterable[Program], *, batch_size: int = 64, device: str | None = None, beam: int | None = None
    ) -> list:
        """One prediction per program (a float for ``bhive``), in order; any
        iterable of programs. A program longer than ``max_len`` tokens is
        refused with ModelError, and anything but a Program (text: parse it
        first, :func:`invar.parse`) with TypeError; ``beam`` overrides the
        config's beam width for sequence tasks."""
        programs = list(programs)
        for k, p in enumerate(programs):
            if not isinstance(p, Program):
                raise TypeError(f"program {k} is a {type(p).__name__}, not a Program: parse it first (invar.parse)")
            if not self.fits(p):
                raise ModelError(
                    f"program {k} ({p.name or 'unnamed'}) has {self.length_of(p)} tokens; this model "
                    f"takes 1 to {self.config.max_len}"
                )
            self.check_supported(p, f"program {k} ({p.name or 'unnamed'})")
        return self.predict_encoded([self.encode(p) for p in programs], batch_size=batch_size, device=device, beam=beam)

    @torch.inference_mode()
    def predict_encoded(
        self,
        encoded: Sequence[Encoded],
        *,
        batch_size: int = 64,
        device: str | None = None,
        beam: int | None = None,
        along: Sequence[Encoded] | None = None,
    ) -> list:
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
            self._check_encoding(k, e)
            self.check_supported(e, f"encoding {k}")
        dev = torch.device(device) if device else next(self.network.parameters()).device
        net = self.network.to(dev)
        was_training = net.training
        net.eval()
        try:
            return self._predict(net, encoded, dev, batch_size, beam or self.config.beam, along)
        finally:
            net.train(was_training)

    def _predict(
        self,
        net: nn.Module,
        encoded: Sequence[Encoded],
        dev: torch.device,
        batch_size: int,
        beam: int,
        along: Sequence[Encoded] | None,
    ) -> list:
        """The predictions, batch by batch of equal length."""
        out: list = [None] * len(encoded)
        for idx in same_length_batches([self.length_of(e) for e in encoded], batch_size):
            originals = [along[i] for i in idx] if along is not None else None
            for i, y in zip(idx, self._predict_batch(net, [encoded[i] for i in idx], dev, beam, originals)):
                out[i] = y
        return out

    def _predict_batch(
        self,
        net: nn.Module,
        items: Sequence[Encoded],
        dev: torch.device,
        beam: int,
        originals: Sequence[Encoded] | None,
    ) -> list:
        """One batch's predictions in the task's form (``originals``: see :meth:`predict_encoded`)."""
        if originals is not None:
            return self._predict_along(net, items, originals, dev)
        return self._output(self._forward(net, items, dev, beam))

    def _forward(self, net: nn.Module, items: Sequence[Encoded], dev: torch.device, beam: int) -> Any:
        """The network's output for one batch."""
        return net(to_device(self.collate(items), dev))

    def _output(self, raw: Any) -> list:
        """The network's output in the task's form."""
        return self._task.output(raw)

    def _predict_along(self, net: nn.Module, items: Sequence[Encoded], originals: Sequence[Encoded], dev) -> list:
        """One batch carried along its originals (only a kind with :attr:`along_table` can)."""
        raise NotImplementedError

    @property
    def along_table(self) -> bool:
        """Whether this is a language model whose table a lexical permutation
        can carry along (a random table: pure lexinvariant)."""
        return False

    def collate(self, encoded: Sequence[Encoded]) -> dict:
        """A batch as this model's network reads it: programs padded to the
        longest, with the masks and ids the config reads."""
        try:
            return collate(
                encoded,
                canonical=self.config.canonicalize,
                symmetry=self.config.uses_symmetry,
                pinned=self.config.pinned_tokens == "token",
            )
        except ValueError as err:
            raise ModelError(str(err))

    # ----------------------------------------------------------- training
    @staticmethod
    def default_max_len(data: Any) -> int:
        """The longest program training takes when not told: 128 tokens."""
        return 128

    @staticmethod
    def fits_training(enc: Encoded, max_len: int) -> bool:
        """Whether training takes ``enc`` (longer ones are skipped and counted)."""
        return 0 < len(enc) <= max_len

    @classmethod
    def completed(cls, config: ModelConfig, train: Sequence[Encoded]) -> ModelConfig:
        """``config`` with what the training split decides."""
        return config

    def targets(self, labels: Any, label_names: Sequence[str] | None) -> torch.Tensor | None:
        """The training labels as the loss takes them (None: the targets are in the batches)."""
        return None

    def init_output(self, labels: Any, label_names: Sequence[str] | None) -> None:
        """Start the fresh network's output where the training labels are."""

    def augmented(self, items: Sequence[Encoded], seed: Callable[[int], int]) -> list[Encoded]:
        """The training programs as a step reads them: for an ``augmented``
        model each renamed at random (``seed(k)`` seeds item ``k``)."""
        return list(items)

    def loss(self, forward: Callable[[dict], Any], batch: dict, targets: torch.Tensor | None) -> torch.Tensor:
        """The training loss of ``batch`` through ``forward`` (the network,
        or its DistributedDataParallel wrapper): the network's own, from the
        targets in the batch."""
        return self.network.loss(forward(batch), batch)

    def validate(
        self, encoded: list[Encoded], labels: Any, dev: torch.device, rank: int, world: int
    ) -> tuple[float, float | None]:
        """(the task's metric, a loss or None) on the validation split; each
        process takes its share and the shares are combined."""
        raise NotImplementedError

    def choose_draw(self, encoded: list[Encoded], dev: torch.device) -> dict:
        """Keep one of ``random_draws`` tables of random vectors (a kind that draws them)."""
        raise ModelError(f"a {self.config.head} model draws no tables of random vectors to choose from")


# ------------------------------------------------------------------ helpers
def same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of equal length (no padding at all), at most
    ``batch_size`` each: a program's prediction then never depends on the
    length of the others."""
    by_length: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_length.setdefault(n, []).append(i)
    return [
        idx[k : k + batch_size]
        for n in sorted(by_length)
        for idx in [by_length[n]]
        for k in range(0, len(idx), batch_size)
    ]


def to_device(batch: dict, device: torch.device | str) -> dict:
    return {k: v.to(device, non_blocking=True) for k, v in batch.items()}


def take(labels: Any, keep: list[int]) -> Any:
    """The labels at ``keep`` (an array's rows, or a list's items)."""
    return labels[keep] if isinstance(labels, np.ndarray) else [labels[i] for i in keep]


def gathered(mine: list[int], values: list, n: int, extra: Any = None) -> tuple[list, list]:
    """Every process's predictions of its share ``mine`` (with an ``extra``
    value each) put together: the n predictions in order, and the extras."""
    import torch.distributed as dist

    parts: list = [None] * dist.get_world_size()
    dist.all_gather_object(parts, (mine, values, extra))
    together: list = [None] * n
    for idx, part, _ in parts:
        for i, y in zip(idx, part):
            together[i] = y
    return together, [x for _, _, x in parts]


def augment(enc: Encoded, vocab: Vocab, seed: int) -> Encoded:
    """``enc`` under a uniformly sampled renaming (the ``augmented`` baseline)."""
    if not len(enc.rename_refs):
        return enc
    space = renaming_space_of(enc, vocab)
    if space.count() == 0:
        return enc
    return renamed(enc, space.sample(1, random.Random(seed))[0], vocab)


__all__ = [
    "Model",
    "kind_of",
    "build_network",
    "checked",
    "to_device",
    "same_length_batches",
    "take",
    "gathered",
    "augment",
]
