"""One configuration for every model invar builds, and the architectures by name.

Every architecture is a preset of :class:`ModelConfig`, never a subclass:
``vanilla`` is the defaults, ``renamer`` embeds views and masks the first
layer by coreference, ``spe`` resets positions at every line and splits the
symmetry mask across heads, ``renamer+spe`` does both (the referent mask on
the first layer, the symmetry mask on the others), ``canonicalized`` reads
the canonical renaming (for sequence tasks also with random embeddings:
``canonicalized+dualpart``, ``canonicalized+lexinvariant``), and so on
(:data:`ARCHITECTURES`; :func:`architectures` lists those a head takes). Incompatible
choices fail in :meth:`ModelConfig.validate` with a message, before any
weight exists.

Sizes are the BERT sizes of the Renamer paper (:data:`SIZES`).

The papers' recipes where invar's defaults once departed from them are
fields: ``embed_scaling`` (the inputs times sqrt(d_model), the default of
dual-part models that generate, as the interchangeable-token paper's LTL
script), ``norm_position``
(post-LN blocks, fairseq's), ``random_draw`` (one table of random vectors
per batch, the authors' code), ``random_vectors`` (the lexinvariant paper's
unit-variance vectors, an option: they trained worse here), ``symmetry_heads`` and :data:`SPE_ABLATIONS` (the
SPE paper's Table 3), ``pool_size`` (the augmented baseline's pool). A
default that depends on other fields is resolved when the config is made,
and a stored config that lacks a field means what it meant when it was
written (:func:`written_before`).

``head="generate"`` makes the network an encoder-decoder (:mod:`invar.nn.decoder`)
on the same blocks: the decoder reads the encoder's output through
cross-attention, has rotary positions (RoPE) in its self-attention, and
projects onto the token embeddings themselves (tied), so the interchangeable
tokens of a dual-part or lexinvariant model are emitted through the same
random vectors that embed them.

``head="lm"`` makes it a decoder-only causal language model
(:mod:`invar.nn.lm`): the same blocks with causal self-attention and rotary
positions (``positions="rotary"``, which only it takes), and the tied output
projection; embeddings ``learned`` or ``lexinvariant`` (pure, or regularised
with ``lexinvariant_p``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping

#: the learned embeddings' initial standard deviation
INIT_STD = 0.02

#: fields that only say how a trained model decodes: training never reads
#: them, so a training state resumes whatever they are
DECODING_FIELDS = ("beam",)

#: name -> (layers, width, heads)
SIZES: dict[str, tuple[int, int, int]] = {"tiny": (2, 128, 2), "mini": (4, 256, 4), "small": (4, 512, 8)}

EMBEDDINGS = ("learned", "view", "dualpart", "lexinvariant")
EMBED_SCALINGS = ("sqrtd", "none")
NORM_POSITIONS = ("pre", "post")
RANDOM_DRAW = ("sequence", "batch")
RANDOM_VECTORS = ("unit", "small")
SYMMETRY_HEADS = ("split", "all")
RANDOM_PARTS = ("normal", "grid", "hypercube")
RANDOM_TOKENS = ("referents", "all")
PINNED_TOKENS = ("view", "token")
POSITIONS = ("absolute", "none", "line", "tree", "rotary")
ATTENTIONS = ("none", "referent", "symmetry", "referent+symmetry")
SYMMETRY_MASKS = ("hadamard", "additive")
HEADS = ("regression", "multilabel", "binary", "generate", "lm")


@dataclass(frozen=True)
class ModelConfig:
    """Every choice of an invar model. Dimension names as in nn/encoder.py."""

    # ------------------------------------------------------------- shape
    #: Transformer layers
    n_layer: int = 2
    #: width C of the residual stream
    d_model: int = 128
    #: attention heads H (C must divide by H)
    n_head: int = 2
    #: hidden width of the feed-forward layers; 0 means 4 C
    d_ff: int = 0
    dropout: float = 0.1
    #: longest program, in tokens (absolute positions have this many entries)
    max_len: int = 128
    # ----------------------------------------- vocabulary sizes (from the Vocab)
    n_tokens: int = 0
    n_views: int = 0
    n_referents: int = 0
    # -------------------------------------------------------- embeddings
    #: ``learned`` per token; ``view`` per Token.view (Renamer's anonymisation);
    #: ``dualpart`` learned part per view + random part per referent;
    #: ``lexinvariant`` random vectors per distinct token and sequence
    embedding: str = "learned"
    #: ``view`` embedding: how a token naming a referent outside its
    #: program's renaming space (``Encoded.pinned``: a pinned register such
    #: as an implicit operand or ``%rsp`` under ``push``; a Python or Java name
    #: that keeps its spelling) is embedded: ``view`` like every other
    #: (Renamer's anonymisation), or
    #: ``token``, by its own learned vector (still exactly invariant: a
    #: renaming never changes such a token)
    pinned_tokens: str = "view"
    #: dualpart: how the random part is drawn (``normal``; ``grid``: distinct
    #: neighbours of the origin in {-1, 0, 1}^d; ``hypercube``: distinct
    #: vertices of {-1, 1}^d)
    random_part: str = "normal"
    #: dualpart: share of the width given to the random part
    random_fraction: float = 0.25
    #: lexinvariant: which tokens get random vectors (``referents``: the tokens
    #: that name something, e.g. registers; ``all``: every token, as in the paper)
    random_tokens: str = "referents"
    #: lexinvariant: None for fresh Gaussian vectors; a probability p for the
    #: regularised variant (a learned table, each token remapped through a
    #: random permutation with probability p during training)
    lexinvariant_p: float | None = None
    #: lexinvariant (pure): how the Gaussian vectors E ~ N(0, I) enter. ``unit``,
    #: the paper's: the model reads s E + b, s a learned scale starting at 1
    #: (unit variance per coordinate) and b a learned bias, and a tied output
    #: writes through E / sqrt(d_model) (T5's tied read-out, the paper's
    #: architecture: logits of unit scale); ``small``: s starts at 0.02, the
    #: learned embeddings' scale, and a tied output writes through s E + b,
    #: the very vectors read. None resolves to ``small``: the paper's ``unit``
    #: trained worse at this scale (docs/models.md says by how much)
    random_vectors: str | None = None
    #: ``sequence``: training draws a table of random vectors per sequence;
    #: ``batch``: one for the whole batch, as the interchangeable-token paper's
    #: code does (dualpart, lexinvariant; head ``generate`` or ``lm``). Under
    #: torchrun each process draws its own
    random_draw: str = "sequence"
    #: fixes the random vectors used at inference (dualpart, lexinvariant)
    seed: int = 0
    #: ``sqrtd``: the token vectors the blocks read are multiplied by
    #: sqrt(d_model) before positions are added (the encoder's and the
    #: decoder's inputs; the rows of a tied output projection are not), as
    #: fairseq's ``--embed-scaling`` and the interchangeable-token paper's LTL
    #: script do; ``none``. None resolves to ``sqrtd`` for a dualpart model
    #: that generates (the papers' setting), whose unit vectors the first
    #: blocks would otherwise drown, and ``none`` for the others (a pooled
    #: dualpart model learned more slowly with it; learned vectors start at
    #: std 0.02, not at unit norm)
    embed_scaling: str | None = None
    # --------------------------------------------------------- positions
    #: ``absolute``; ``none``; ``line``: reset at the start of every line (SPE);
    #: ``tree``: a formula token's path from the root of its syntax tree
    #: (DeepLTL's tree positional encoding; the task supplies the paths);
    #: ``rotary``: RoPE on queries and keys (the language model's, head="lm")
    positions: str = "absolute"
    # ------------------------------------------------------------ blocks
    #: where each block's LayerNorms stand: ``pre`` (before each sublayer, the
    #: residual stream left unnormalised, then a final LayerNorm; nanoGPT) or
    #: ``post`` (after each residual add, and no final LayerNorm: every block
    #: already ends normalised; fairseq's post-LN blocks)
    norm_position: str = "pre"
    # --------------------------------------------------------- attention
    #: ``none``; ``referent``: a token attends only to coreferential tokens
    #: (a token with no referent only to itself); ``symmetry``: the SPE mask;
    #: ``referent+symmetry``: the referent mask on the first ``mask_layers``
    #: layers, the SPE mask on the others
    attention: str = "none"
    #: how many layers, from the first, apply the mask; 0 means all
    #: (``referent+symmetry``: how many get the referent mask, at least 1 and
    #: fewer than n_layer)
    mask_layers: int = 0
    #: symmetry mask: ``hadamard`` (multiplies the scores before the softmax,
    #: as the SPE paper defines it) or ``additive`` (-inf where masked)
    symmetry_mask: str = "hadamard"
    #: which heads the symmetry mask goes to: ``split``, the SPE paper's 6 / 3 /
    #: 3 of 12 (the mask, its transpose, none: :attr:`head_split`); ``all``,
    #: every head the mask (its Table 3 ablation "SPE (all)")
    symmetry_heads: str = "split"
    # -------------------------------------------------- input transforms
    #: predict on the canonical renaming (training and prediction); for
    #: ``head="generate"`` the target is renamed alike and every written name
    #: is mapped back through the inverse renaming (nn/canonical.py)
    canonicalize: bool = False
    #: train on a freshly sampled renaming of every example each time it is drawn
    augment: bool = False
    # -------------------------------------------------------------- head
    #: pooled ``regression``, ``multilabel`` or ``binary`` classification, or
    #: ``generate``: a decoder that writes the output sequence token by token;
    #: ``lm``: a decoder-only causal language model (next-token prediction)
    head: str = "regression"
    n_labels: int = 1
    # ------------------------------------------- decoder (head="generate")
    #: decoder layers; 0 means as many as the encoder's
    decoder_layers: int = 0
    #: the output projection is the token embedding itself (for dualpart and
    #: lexinvariant, the only way to emit tokens never seen in training)
    tie_output: bool = True
    #: L2-normalise the decoder's features and the projection's rows (logits
    #: are cosines times a scale)
    normalize_features: bool = False
    #: AdaCos: the scale of the cosine logits adapts during training (clipped
    #: at 100, padding excluded); needs normalize_features
    adacos: bool = False
    #: interchangeable tokens (APs, symbols) the input does not hold are never emitted
    restrict_output: bool = True
    #: beam width of prediction; 1 is greedy decoding
    beam: int = 3
    #: the longest output written, in tokens; 0 means max_len (training sets
    #: twice the longest target it saw)
    max_output: int = 0
    #: random embeddings: how many seeded tables training tries at the end on
    #: the validation split, keeping the one of median loss (1: the table of ``seed``)
    random_draws: int = 1
    #: how many of the task's interchangeable names (its pool: the APs a-z,
    #: the symbols a-z A-Z) the vocabulary holds beyond those training uses,
    #: the first ones; 0: all. ``augmented`` renames into them: the paper's
    #: baseline has as many as its test set has APs
    pool_size: int = 0
    # ----------------------------------------------------------- names
    #: the architecture and size this config was made from (for reports)
    arch: str = "custom"
    size: str = "custom"

    def __post_init__(self) -> None:
        # defaults that depend on other fields, resolved once, so that a
        # config holds (and a checkpoint stores) what its model does
        if self.embed_scaling is None:
            # measured: the issue-34 probe, dual-part LTL at size 5, 57 % -> 90-93 % correct with sqrtd; a
            # pooled dual-part model (names) learned more slowly with it: the papers scale only what generates
            scaled = self.embedding == "dualpart" and self.head == "generate"
            object.__setattr__(self, "embed_scaling", "sqrtd" if scaled else "none")
        if self.random_vectors is None and self.embedding == "lexinvariant" and self.lexinvariant_p is None:
            # the paper's unit vectors are an option: on the fixtures' LM they trained worse at equal steps
            # (validation perplexity 26.8 against 23.4 after 1,320 steps), so the small ones stay the default
            object.__setattr__(self, "random_vectors", "small")

    # ------------------------------------------------------------ derived
    @property
    def input_scale(self) -> float:
        """What the token vectors the blocks read are multiplied by."""
        return math.sqrt(self.d_model) if self.embed_scaling == "sqrtd" else 1.0

    @property
    def ff_width(self) -> int:
        return self.d_ff or 4 * self.d_model

    @property
    def random_dims(self) -> int:
        """Width of the dualpart random part."""
        return round(self.d_model * self.random_fraction)

    @property
    def head_split(self) -> tuple[int, int, int]:
        """Heads given the symmetry mask, its transpose, and no mask: the SPE
        paper's 6 / 3 / 3 of 12, scaled, with at least one head masked (all
        three kinds from 4 heads on); every head the mask for ``symmetry_heads="all"``."""
        h = self.n_head
        if self.symmetry_heads == "all":
            return h, 0, 0
        sym = max(1, round(h * 6 / 12))
        transposed = min(round(h * 3 / 12), h - sym)
        return sym, transposed, h - sym - transposed

    @property
    def n_decoder_layer(self) -> int:
        return self.decoder_layers or self.n_layer

    @property
    def generates(self) -> bool:
        return self.head == "generate"

    @property
    def computes_loss(self) -> bool:
        """Whether the network computes its own loss from the batch (an
        encoder-decoder's and a language model's targets are in the batch)."""
        return self.generates or self.head == "lm"

    @property
    def uses_symmetry(self) -> bool:
        """Whether some layer applies the SPE symmetry mask (batches carry it)."""
        return self.attention in ("symmetry", "referent+symmetry")

    def masked_layer(self, i: int) -> bool:
        """Whether layer ``i`` applies a mask."""
        if self.attention == "referent+symmetry":
            return True
        return self.attention != "none" and (self.mask_layers == 0 or i < self.mask_layers)

    def layer_attention(self, i: int) -> str:
        """The mask layer ``i`` applies: ``none``, ``referent`` or ``symmetry``."""
        if self.attention == "referent+symmetry":
            return "referent" if i < self.mask_layers else "symmetry"
        return self.attention if self.masked_layer(i) else "none"

    # ------------------------------------------------------------ checks
    def validate(self) -> "ModelConfig":
        """Raise ValueError, with a message, for an impossible or incompatible config."""
        for name, allowed in (
            ("embedding", EMBEDDINGS),
            ("random_part", RANDOM_PARTS),
            ("random_tokens", RANDOM_TOKENS),
            ("pinned_tokens", PINNED_TOKENS),
            ("embed_scaling", EMBED_SCALINGS),
            ("norm_position", NORM_POSITIONS),
            ("random_draw", RANDOM_DRAW),
            ("positions", POSITIONS),
            ("attention", ATTENTIONS),
            ("symmetry_mask", SYMMETRY_MASKS),
            ("symmetry_heads", SYMMETRY_HEADS),
            ("head", HEADS),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name}={value!r}: choose from {', '.join(allowed)}")
        for name in ("n_layer", "d_model", "n_head", "max_len"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_head={self.n_head}")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout={self.dropout} must be in [0, 1)")
        if not 0 <= self.mask_layers <= self.n_layer:
            raise ValueError(f"mask_layers={self.mask_layers} must be between 0 (all) and n_layer={self.n_layer}")
        if self.mask_layers and self.attention == "none":
            raise ValueError("mask_layers is set but attention='none' applies no mask")
        if self.attention == "referent+symmetry" and not 1 <= self.mask_layers < self.n_layer:
            raise ValueError(
                f"attention='referent+symmetry' puts the referent mask on the first mask_layers layers and the "
                f"symmetry mask on the rest: mask_layers={self.mask_layers} must be between 1 and "
                f"n_layer - 1 = {self.n_layer - 1}"
            )
        if self.augment and self.canonicalize:
            raise ValueError(
                "augment and canonicalize exclude each other: canonical inputs make every renaming the same"
            )
        self._validate_dualpart()
        if self.embedding != "lexinvariant" and (self.lexinvariant_p is not None or self.random_tokens != "referents"):
            raise ValueError(
                f"lexinvariant_p and random_tokens apply to embedding='lexinvariant', not {self.embedding!r}"
            )
        if (self.positions == "rotary") != (self.head == "lm"):
            raise ValueError("positions='rotary' is the language model's (head='lm'), and it takes no other")
        if self.lexinvariant_p is not None and not 0 <= self.lexinvariant_p <= 1:
            raise ValueError(f"lexinvariant_p={self.lexinvariant_p} must be a probability")
        if self.pinned_tokens != "view" and self.embedding != "view":
            raise ValueError(f"pinned_tokens applies to embedding='view', not {self.embedding!r}")
        if self.embedding == "view" and self.canonicalize:
            raise ValueError("canonicalize does nothing with embedding='view': views never change under a renaming")
        if self.canonicalize and self.embedding in ("dualpart", "lexinvariant") and not self.generates:
            raise ValueError(
                f"canonicalize with embedding={self.embedding!r} is for sequence tasks (head='generate'), whose "
                "canonical names may be more than training saw; elsewhere canonical ids alone are invariant: "
                "use the canonicalized architecture"
            )
        if self.head == "binary" and self.n_labels != 1:
            raise ValueError(f"a binary head has one label, not {self.n_labels}")
        if self.n_labels < 1:
            raise ValueError(f"n_labels={self.n_labels} must be at least 1")
        if self.uses_symmetry and self.symmetry_mask == "hadamard" and self.n_head < 1:
            raise ValueError("the symmetry mask needs a head")
        if self.symmetry_heads != "split" and not self.uses_symmetry:
            raise ValueError(f"symmetry_heads applies to the symmetry mask, not attention={self.attention!r}")
        self._validate_random()
        self._validate_decoder()
        if self.head == "lm":
            self._validate_lm()
        return self

    def _validate_dualpart(self) -> None:
        """The dual-part options (random_fraction, random_part)."""
        if self.embedding == "dualpart":
            if not 0 < self.random_dims < self.d_model:
                raise ValueError(
                    f"random_fraction={self.random_fraction} leaves {self.random_dims} of {self.d_model} "
                    "dimensions to the random part; both parts need at least one"
                )
            capacity = {"grid": 3**self.random_dims - 1, "hypercube": 2**self.random_dims}.get(self.random_part)
            if capacity is not None and self.n_referents > capacity:
                raise ValueError(
                    f"random_part={self.random_part!r} has {capacity} distinct points in {self.random_dims} "
                    f"dimensions, fewer than the {self.n_referents} referents"
                )
        elif self.random_part != "normal" or self.random_fraction != 0.25:
            raise ValueError(f"random_part and random_fraction apply to embedding='dualpart', not {self.embedding!r}")

    def _validate_random(self) -> None:
        """The random vectors' options (random_vectors, random_draw)."""
        pure = self.embedding == "lexinvariant" and self.lexinvariant_p is None
        if self.random_vectors is not None and not pure:
            what = "lexinvariant_p" if self.embedding == "lexinvariant" else f"embedding={self.embedding!r}"
            raise ValueError(f"random_vectors applies to embedding='lexinvariant' without lexinvariant_p, not {what}")
        if self.random_vectors is not None and self.random_vectors not in RANDOM_VECTORS:
            raise ValueError(f"random_vectors={self.random_vectors!r}: choose from {', '.join(RANDOM_VECTORS)}")
        random = self.embedding == "dualpart" or pure
        if self.random_draw != "sequence" and not (random and self.head in ("generate", "lm")):
            raise ValueError(
                "random_draw='batch' applies to the random vectors (dualpart, or lexinvariant without "
                "lexinvariant_p) of a model that generates or a language model (head 'generate' or "
                "'lm'), whose training draws a table per sequence"
            )

    def _validate_decoder(self) -> None:
        defaults = {f.name: f.default for f in fields(ModelConfig)}
        decoder_only = ("decoder_layers", "normalize_features", "adacos", "random_draws", "max_output", "pool_size")
        if not self.generates:
            for name in decoder_only:
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"{name} applies to head='generate', not {self.head!r}")
            return
        if self.decoder_layers < 0:
            raise ValueError(f"decoder_layers={self.decoder_layers} must be at least 0 (0: as many as n_layer)")
        self._check_rotary_width()
        if self.max_output < 0:
            raise ValueError(f"max_output={self.max_output} must be at least 0 (0: max_len)")
        if self.beam < 1:
            raise ValueError(f"beam={self.beam} must be at least 1 (1: greedy decoding)")
        if self.random_draws < 1:
            raise ValueError(f"random_draws={self.random_draws} must be at least 1")
        if self.pool_size < 0:
            raise ValueError(f"pool_size={self.pool_size} must be at least 0 (0: the task's whole pool)")
        if self.pool_size and self.canonicalize:
            raise ValueError("pool_size: a canonicalized model's canonical names are the whole pool")
        if self.random_draws > 1 and self.embedding not in ("dualpart", "lexinvariant"):
            raise ValueError(
                f"random_draws applies to random embeddings (dualpart, lexinvariant), not {self.embedding!r}"
            )
        if self.adacos and not self.normalize_features:
            raise ValueError("adacos scales cosines: it needs normalize_features=True")
        if self.embedding == "view":
            raise ValueError("embedding='view' gives every AP one vector, so a decoder could not tell which to emit")
        if self.embedding in ("dualpart", "lexinvariant") and not self.tie_output:
            raise ValueError(
                f"embedding={self.embedding!r} emits its random tokens through its own vectors: "
                "it needs tie_output=True"
            )
        if self.embedding == "lexinvariant" and self.lexinvariant_p is not None:
            raise ValueError("the regularised lexinvariant variant (lexinvariant_p) is not supported for generation")
        if self.uses_symmetry:
            raise ValueError(f"attention={self.attention!r} is not supported for generation")

    def _check_rotary_width(self) -> None:
        """Rotary positions rotate pairs of a head's coordinates: its width must be even."""
        if (self.d_model // self.n_head) % 2:
            raise ValueError(
                f"n_head={self.n_head} leaves heads {self.d_model // self.n_head} wide (d_model={self.d_model}): "
                "rotary positions need an even head width"
            )

    def _validate_lm(self) -> None:
        if self.embedding not in ("learned", "lexinvariant"):
            raise ValueError(
                f"a language model (head='lm') embeds tokens 'learned' or 'lexinvariant', not {self.embedding!r}"
            )
        self._check_rotary_width()
        if self.embedding == "lexinvariant" and not self.tie_output:
            raise ValueError(
                "a lexinvariant language model writes tokens through its random vectors: it needs tie_output=True"
            )
        for name, why in (
            ("attention", "causal attention only"),
            ("canonicalize", "no canonical form"),
            ("augment", "no augmentation"),
        ):
            if getattr(self, name) not in ("none", False):
                raise ValueError(f"{name}={getattr(self, name)!r}: a language model (head='lm') takes {why}")

    # ------------------------------------------------------------ JSON form
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ModelConfig":
        """The config of :meth:`to_dict`'s dict. A field the dict lacks, written
        before the field existed, takes what that config meant
        (:func:`written_before`), not what a new config defaults to."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown config fields: {', '.join(unknown)}")
        return cls(**{**written_before(data), **dict(data)})

    def with_vocab(self, vocab) -> "ModelConfig":
        """This config sized for ``vocab`` (an :class:`invar.encoding.Vocab`)."""
        return replace(self, n_tokens=len(vocab.tokens), n_views=len(vocab.views), n_referents=len(vocab.referents))


def written_before(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a stored config that lacks a field meant by it: the fields whose
    default for a new model is not what every earlier model did (a dual-part
    model read unscaled vectors; a lexinvariant model's random vectors were
    ``small``). A field added with a default that keeps the earlier behaviour
    (``norm_position``, ``random_draw``, ...) needs no entry."""
    out: dict[str, Any] = {"embed_scaling": "none"}
    if data.get("embedding") == "lexinvariant" and data.get("lexinvariant_p") is None:
        out["random_vectors"] = "small"
    return out


#: architecture name -> the fields it sets (everything else is the default)
ARCHITECTURES: dict[str, dict[str, Any]] = {
    "vanilla": {},
    "augmented": {"augment": True},
    "canonicalized": {"canonicalize": True},
    "renamer": {"embedding": "view", "attention": "referent", "mask_layers": 1},
    "spe": {"positions": "line", "attention": "symmetry"},
    "renamer+spe": {"embedding": "view", "positions": "line", "attention": "referent+symmetry", "mask_layers": 1},
    "dualpart": {"embedding": "dualpart"},
    "lexinvariant": {"embedding": "lexinvariant"},
    # sequence tasks only: canonical names through random vectors, so names
    # past those training saw are read (and written) too
    "canonicalized+dualpart": {"canonicalize": True, "embedding": "dualpart"},
    "canonicalized+lexinvariant": {"canonicalize": True, "embedding": "lexinvariant"},
}


#: the SPE paper's Table 3 (function names): its model and two ablations, as (architecture, fields):
#: ``spe (all)`` puts the symmetry mask on every head, ``spe (w.o. pe)`` drops the line positions
SPE_ABLATIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "spe": ("spe", {}),
    "spe (all)": ("spe", {"symmetry_heads": "all"}),
    "spe (w.o. pe)": ("spe", {"positions": "none"}),
}
#: the fewest heads whose split keeps every kind (the mask, its transpose, none: 2 / 1 / 1)
SPE_MIN_HEADS = 4


def spe_ablations(size: str = "tiny", **overrides: Any) -> dict[str, ModelConfig]:
    """The configs of :data:`SPE_ABLATIONS` at ``size``, with at least
    :data:`SPE_MIN_HEADS` heads (tiny's 2 would split 1 / 0 / 1: no
    transposed head), and ``overrides``."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}: choose from {', '.join(SIZES)}")
    heads = max(SPE_MIN_HEADS, SIZES[size][2])
    return {
        name: preset(arch, size, **{"n_head": heads, **fields, **overrides})
        for name, (arch, fields) in SPE_ABLATIONS.items()
    }


def architectures(head: str = "regression") -> list[str]:
    """The architectures whose preset ``head`` takes (``renamer`` and ``spe``
    do not generate; ``canonicalized+dualpart`` and
    ``canonicalized+lexinvariant`` only generate)."""
    out = []
    for arch in ARCHITECTURES:
        try:
            preset(arch, "tiny", head=head)
        except ValueError:
            continue
        out.append(arch)
    return out


def preset(arch: str, size: str = "tiny", **overrides: Any) -> ModelConfig:
    """The config of architecture ``arch`` at ``size``, with ``overrides``
    (any field). Raises ValueError for an unknown name or a bad combination."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {arch!r}: choose from {', '.join(ARCHITECTURES)}")
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}: choose from {', '.join(SIZES)}")
    n_layer, d_model, n_head = SIZES[size]
    known = {f.name for f in fields(ModelConfig)}
    bad = sorted(set(overrides) - known)
    if bad:
        raise ValueError(f"unknown config field {bad[0]!r}")
    values = {"n_layer": n_layer, "d_model": d_model, "n_head": n_head, "arch": arch, "size": size}
    values.update(ARCHITECTURES[arch])
    values.update(overrides)
    return ModelConfig(**values).validate()


__all__ = [
    "ModelConfig",
    "DECODING_FIELDS",
    "ARCHITECTURES",
    "SIZES",
    "SPE_ABLATIONS",
    "preset",
    "architectures",
    "spe_ablations",
    "written_before",
]
