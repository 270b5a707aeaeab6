"""A trained model: network, vocabulary, config and task together, in one of
three kinds.

:func:`invar.load_model` returns a :class:`Model`; ``Model(task, config,
vocab, …)`` makes the kind that serves ``config.head`` (:func:`kind_of`):

=================  ==========================================  ===========================
kind               heads                                       network
=================  ==========================================  ===========================
pooled encoder     ``regression``, ``multilabel``, ``binary``  :class:`~.encoder.Network`
encoder-decoder    ``generate``                                :class:`~.decoder.Seq2Seq`
causal LM          ``lm``                                      :class:`~.lm.LanguageModel`
=================  ==========================================  ===========================

What they share is :mod:`.wrapper`; each kind is its own module
(:mod:`.pooled`, :mod:`.encoder_decoder`, :mod:`.causal_lm`) with its
forward, loss and output. This module imports them all, so that every kind
is registered wherever a model is made.
"""

from __future__ import annotations

from .causal_lm import CausalLM
from .encoder_decoder import EncoderDecoder
from .pooled import PooledEncoder
from .wrapper import Model, build_network, kind_of, to_device

__all__ = ["Model", "PooledEncoder", "EncoderDecoder", "CausalLM", "kind_of", "build_network", "to_device"]
