"""Models whose invariances hold by construction.

One encoder, configured rather than subclassed (:mod:`invar.nn.config`):
embeddings (:mod:`.embeddings`), attention masks (:mod:`.attention`), the
encoder (:mod:`.encoder`) and pooled heads (:mod:`.heads`); for sequence
tasks a decoder (:mod:`.decoder`), decoding (:mod:`.generate`) and the
canonicalized models' map back (:mod:`.canonical`); the decoder-only
language model (:mod:`.lm`) on the same blocks, and the probe that reads a
substitution cipher's key back from a frozen one (:mod:`.probe`). :mod:`.model` wraps a
network with its vocabulary and task, one wrapper per kind of model, each with its own
forward, loss and output: a pooled encoder (:mod:`.pooled`), an encoder-decoder
(:mod:`.encoder_decoder`), a causal language model (:mod:`.causal_lm`), over what they
share (:mod:`.wrapper`).

The nn layer imports the ground floor, symmetry, frontends, encoding, data
and tasks; never checkpoint (which loads models), train, audit, alta or cli.
"""

from .config import ARCHITECTURES, SIZES, ModelConfig, architectures, preset

__all__ = ["ModelConfig", "ARCHITECTURES", "SIZES", "preset", "architectures"]
