"""AdamW (Loshchilov and Hutter, 2019), the update `torch.optim.AdamW`
computes, without `torch.optim`.

Every step of a `torch.optim` optimiser passes through torch's guards for
its compiler, which import `torch._dynamo` on the first step: about 4 s of
CPU in each process that trains (one epoch of `renamer` `tiny` on the
fixture blocks took 8.3 s of CPU with torch's optimiser and takes 4.2 s
with this one; torch 2.13 on the reference machine), paid again by every
`invar train` and by each torchrun worker. This class performs the same arithmetic as
torch's two non-fused implementations: its per-tensor one where the
parameters are on the CPU (torch's default there) and its `_foreach` one
elsewhere (torch's default on a GPU). Both are compared with
`torch.optim.AdamW` bit for bit (tests/nn/test_adamw.py). Its state dict
has torch's layout, so a training state saved by either loads in the other.

Only what invar uses is here: parameter groups (each with its own `lr`
and `weight_decay`), `betas` and `eps`; no amsgrad, maximize, capturable
or differentiable modes, no closures, no sparse or complex parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

#: the settings a group keeps (torch's groups carry more; they load only at
#: torch's defaults, the values this class computes with)
_SETTINGS = ("lr", "betas", "eps", "weight_decay")
_TORCH_FLAGS = ("amsgrad", "maximize", "capturable", "differentiable", "fused")


class AdamW:
    """``AdamW(groups, lr=..., betas=..., eps=..., weight_decay=...)``, where
    ``groups`` are parameters or dicts with ``params`` and any setting;
    ``foreach`` picks the implementation (by default, as torch picks it:
    per tensor on the CPU, `_foreach` elsewhere)."""

    def __init__(
        self,
        groups: Iterable[torch.nn.Parameter] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        foreach: bool | None = None,
    ) -> None:
        self.foreach = foreach
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay}
        groups = list(groups)
        if groups and not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.param_groups: list[dict[str, Any]] = [{**defaults, **g, "params": list(g["params"])} for g in groups]
        self.state: dict[torch.Tensor, dict[str, torch.Tensor]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_()

    @torch.no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            for p in params:
                if p.grad.is_sparse or torch.is_complex(p):
                    raise ValueError("AdamW here takes dense real parameters only")
                if p not in self.state:
                    self.state[p] = _fresh_state(p)
            foreach = params[0].device.type != "cpu" if self.foreach is None else self.foreach
            if not foreach:
                _per_tensor(params, [self.state[p] for p in params], group)
            else:
                _foreach(params, [self.state[p] for p in params], group)

    def state_dict(self) -> dict[str, Any]:
        """torch's layout: ``state`` keyed by each parameter's position over
        all groups, ``param_groups`` with those positions as ``params``."""
        index: dict[torch.Tensor, int] = {}
        groups = []
        for group in self.param_groups:
            positions = [index.setdefault(p, len(index)) for p in group["params"]]
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": positions})
        state = {index[p]: dict(s) for p, s in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        """Settings and moments from ``saved`` (ours or torch's), each moment
        cast to its parameter's dtype and device, as torch does."""
        groups = saved["param_groups"]
        if len(groups) != len(self.param_groups) or any(
            len(g["params"]) != len(mine["params"]) for g, mine in zip(groups, self.param_groups)
        ):
            raise ValueError("the saved optimiser state has other parameter groups than this model")
        for g in groups:
            changed = [flag for flag in _TORCH_FLAGS if g.get(flag)]
            if changed:
                raise ValueError(f"the saved optimiser state uses {', '.join(changed)}, which this AdamW does not")
        by_position = {}
        for g, mine in zip(groups, self.param_groups):
            mine.update({k: (tuple(g[k]) if k == "betas" else g[k]) for k in _SETTINGS})
            by_position.update(zip(g["params"], mine["params"]))
        self.state = {}
        for position, s in saved["state"].items():
            p = by_position[position]
            self.state[p] = {
                "step": s["step"].to(torch.float32).cpu().clone(),
                "exp_avg": s["exp_avg"].to(dtype=p.dtype, device=p.device).clone(),
                "exp_avg_sq": s["exp_avg_sq"].to(dtype=p.dtype, device=p.device).clone(),
            }


def _fresh_state(p: torch.Tensor) -> dict[str, torch.Tensor]:
    """A step count on the CPU and zero moments shaped like ``p``, as torch starts them."""
    return {
        "step": torch.tensor(0.0, dtype=torch.float32),
        "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
        "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format),
    }


def _per_tensor(params: list[torch.Tensor], states: list[dict], group: dict) -> None:
    """torch's `_single_tensor_adam` with decoupled weight decay, op for op."""
    lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    for p, s in zip(params, states):
        grad, exp_avg, exp_avg_sq = p.grad, s["exp_avg"], s["exp_avg_sq"]
        s["step"] += 1
        if decay != 0:
            p.mul_(1 - lr * decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = s["step"].item()
        step_size = lr / (1 - beta1**step)
        denom = (exp_avg_sq.sqrt() / (1 - beta2**step) ** 0.5).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)


def _foreach(params: list[torch.Tensor], states: list[dict], group: dict) -> None:
    """torch's `_multi_tensor_adam` (not capturable) with decoupled weight
    decay, op for op, over tensors of one device and dtype at a time."""
    lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    buckets: dict[tuple, list[int]] = {}
    for i, p in enumerate(params):
        buckets.setdefault((p.device, p.dtype), []).append(i)
    for members in buckets.values():
        ps = [params[i] for i in members]
        grads = [params[i].grad for i in members]
        exp_avgs = [states[i]["exp_avg"] for i in members]
        exp_avg_sqs = [states[i]["exp_avg_sq"] for i in members]
        steps = [states[i]["step"] for i in members]
        torch._foreach_add_(steps, torch.tensor(1.0), alpha=1.0)
        if decay != 0:
            torch._foreach_mul_(ps, 1 - lr * decay)
        torch._foreach_lerp_(exp_avgs, grads, 1 - beta1)
        torch._foreach_mul_(exp_avg_sqs, beta2)
        torch._foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
        counts = [s.item() for s in steps]
        step_size = [(lr / (1 - beta1**n)) * -1 for n in counts]
        denom = torch._foreach_sqrt(exp_avg_sqs)
        torch._foreach_div_(denom, [(1 - beta2**n) ** 0.5 for n in counts])
        torch._foreach_add_(denom, eps)
        torch._foreach_addcdiv_(ps, exp_avgs, denom, step_size)
