"""A character language model trained for a few steps on the fixtures, for the bench scripts that score LMs."""

from __future__ import annotations

import pytest

import invar
from invar.tasks import lm
from tests.conftest import FIXTURES


@pytest.fixture(scope="session")
def char_lm(tmp_path_factory):
    """Trained once a test process, for every module that scores it (nothing writes into it):
    a directory with ``data`` (invar data lm on fixtures/python, windows of 64 characters) and ``m.pt``."""
    out = tmp_path_factory.mktemp("lm")
    lm.build(FIXTURES / "python", out / "data", vocab="char", seq_len=64)
    invar.train(
        task="lm", data=out / "data", arch="vanilla", epochs=1, batch_size=16, limit=48, threads=1, out=out / "m.pt"
    )
    return out
