"""invar's AdamW computes what torch.optim.AdamW computes, bit for bit, and
their state dicts load in each other."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from invar.nn.adamw import AdamW
from tests.conftest import ROOT

#: (name, optimiser settings, steps): groups as invar's training builds them
CASES = [
    ("defaults", {}, 7),
    ("decay-and-betas", {"weight_decay": 0.1, "betas": (0.9, 0.95), "lr": 3e-3}, 9),
    ("no-decay", {"weight_decay": 0.0, "eps": 1e-6}, 5),
]


def _net(seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.LayerNorm(8), torch.nn.Linear(8, 3))


def _groups(net: torch.nn.Module, settings: dict) -> list[dict]:
    """Matrices with the weight decay, biases and norms without it (as invar.train does)."""
    decay = settings.get("weight_decay", 1e-2)
    return [
        {"params": [p for p in net.parameters() if p.dim() >= 2], "weight_decay": decay},
        {"params": [p for p in net.parameters() if p.dim() < 2], "weight_decay": 0.0},
    ]


def _batches(seed: int):
    """Seeded batches, endlessly."""
    g = torch.Generator().manual_seed(seed)
    while True:
        yield torch.randn(5, 6, generator=g)


def _train(net: torch.nn.Module, opt, steps: int, batches, lr_at=None, first: int = 0) -> None:
    """Steps ``first`` … ``first + steps - 1`` on the next of ``batches``; one parameter has no
    gradient in every third step."""
    for step in range(first, first + steps):
        if lr_at:
            for group in opt.param_groups:
                group["lr"] = lr_at(step)
        loss = net(next(batches)).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if step % 3 == 2:
            net[2].bias.grad = None
        opt.step()


def _rising(step: int) -> float:
    """A learning rate that changes every step, as a schedule's does."""
    return 1e-3 * (step + 1)


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


@pytest.mark.parametrize("foreach", [False, True], ids=["per-tensor", "foreach"])
@pytest.mark.parametrize("name, settings, steps", CASES, ids=[c[0] for c in CASES])
def test_the_same_weights_as_torch_bit_for_bit(name, settings, steps, foreach):
    ours, theirs = _net(1), _net(1)
    kw = {k: v for k, v in settings.items() if k != "weight_decay"}
    _train(ours, AdamW(_groups(ours, settings), foreach=foreach, **kw), steps, _batches(2), _rising)
    _train(theirs, torch.optim.AdamW(_groups(theirs, settings), foreach=foreach, **kw), steps, _batches(2), _rising)
    assert _same(ours, theirs)


def test_the_optimiser_moves_the_weights():
    """The comparison above would pass for two optimisers that do nothing."""
    net, before = _net(1), _net(1)
    _train(net, AdamW(net.parameters()), 3, _batches(2))
    assert not _same(net, before)


@pytest.mark.parametrize("first, second", [("ours", "torch"), ("torch", "ours")])
def test_a_state_saved_by_one_resumes_in_the_other(first, second, tmp_path):
    make = {
        "ours": lambda net: AdamW(_groups(net, {}), lr=2e-3),
        "torch": lambda net: torch.optim.AdamW(_groups(net, {}), lr=2e-3),
    }
    straight = _net(3)
    _train(straight, make[first](straight), 8, _batches(4))

    net, batches = _net(3), _batches(4)
    opt = make[first](net)
    _train(net, opt, 4, batches)
    torch.save({"optimizer": opt.state_dict()}, tmp_path / "state.pt")
    saved = torch.load(tmp_path / "state.pt", weights_only=True)["optimizer"]
    resumed = make[second](net)
    resumed.load_state_dict(saved)
    _train(net, resumed, 4, batches, first=4)
    assert _same(net, straight)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s["param_groups"].pop(), "other parameter groups"),
        (lambda s: s["param_groups"][0]["params"].pop(), "other parameter groups"),
        (lambda s: s["param_groups"][1].update(amsgrad=True), "uses amsgrad"),
    ],
    ids=["a-group-less", "a-parameter-less", "amsgrad"],
)
def test_a_state_of_another_shape_or_mode_is_refused(edit, message):
    net = _net(0)
    theirs = torch.optim.AdamW(_groups(net, {}))
    _train(net, theirs, 1, _batches(0))
    saved = theirs.state_dict()
    edit(saved)
    with pytest.raises(ValueError, match=message):
        AdamW(_groups(net, {})).load_state_dict(saved)


def test_training_does_not_import_torchs_compiler(tmp_path):
    """What this optimiser is for: a training process never imports torch._dynamo."""
    code = (
        "import sys\n"
        "from invar.nn.adamw import AdamW\n"
        "from tests.nn.test_adamw import _batches, _net, _train\n"
        "net = _net(0)\n"
        "_train(net, AdamW(net.parameters()), 2, _batches(0))\n"
        "print('torch._dynamo' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
