"""Model tests run single-threaded: small tensors gain nothing from threads
on a shared machine, and one thread keeps float results stable."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
