"""The compiler: a :class:`~.spec.AltaProgram` as the weights of a Universal Transformer.

Dimensions:
    B  batch     T  positions (padded)     C  residual width     H  heads     D  head width
    E  one-hot width of the MLP's inputs     R  rules

The residual stream holds every variable: a categorical one as a one-hot
over its range, a numerical one in one dimension, a set one as a multi-hot
over its members; a null head output is all zeros. Embeddings write the
initialisations (token table, position table, constants in the token
table). Each head's query, key, value and output projections select its
variables; the query is scaled by ``lam`` so that a selected key scores
``lam`` and any other 0, and a relative mask adds ``-2 lam`` to the keys at
other offsets (padding gets ``-inf``-like). The MLP has four layers with
clipped ReLUs and no LayerNorm: two turn numerical variables (their
buckets) and set variables (their sets) into one-hots, one has a unit per
rule (weights 1 on its conditions, bias 1 − their number), the last writes
each rule's change (``+1`` new value, ``−1`` old value). Both sub-layers
are residual; all layers share their weights. An example stops once each of
its positions holds the halting value (each example on its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from .interpreter import DEFAULT_LAYER_CAP, State, token_ids, tokens_of
from .spec import AltaProgram, Variable

#: the additive bias of padding keys (finite, so a row never softmaxes to NaN)
PAD_BIAS = -1e9


@dataclass(frozen=True)
class Layout:
    """Where each variable lives: in the residual stream and among the MLP's one-hots."""

    residual: dict[str, tuple[int, int]]
    onehot: dict[str, tuple[int, int]]
    width: int
    onehot_width: int


def layout(program: AltaProgram) -> Layout:
    residual, onehot = {}, {}
    c = e = 0
    for v in program.variables:
        w = 1 if v.kind == "numerical" else v.size
        residual[v.name] = (c, w)
        c += w
        n = len(v.domain())
        onehot[v.name] = (e, n)
        e += n
    return Layout(residual, onehot, c, e)


def encode_value(v: Variable, value: Any) -> list[float]:
    """The residual vector of one variable's value (zeros for null)."""
    if v.kind == "numerical":
        return [0.0 if value is None else float(value)]
    vec = [0.0] * v.size
    if value is None:
        return vec
    for m in value if v.kind == "set" else (value,):
        vec[int(m)] = 1.0
    return vec


def clipped_relu(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(0.0, 1.0)


class Compiled(nn.Module):
    """The compiled model of one program; :meth:`forward` runs a batch."""

    def __init__(self, program: AltaProgram, *, lam: float = 100.0):
        super().__init__()
        self.program = program
        self.lam = float(lam)
        self.layout = layout(program)
        C, P = self.layout.width, program.max_length or 0
        H = max(1, len(program.heads))
        D = max([self._head_width(h) for h in program.heads] + [1])
        self.n_head, self.d_head = H, D
        self.token_embedding = nn.Embedding(len(program.alphabet), C)
        self.position_embedding = nn.Embedding(max(P, 1), C)
        self.q_proj = nn.Linear(C, H * D, bias=False)
        self.k_proj = nn.Linear(C, H * D, bias=False)
        self.v_proj = nn.Linear(C, H * D, bias=False)
        self.o_proj = nn.Linear(H * D, C, bias=False)
        hidden = sum(self._expand_width(v) for v in program.variables)
        self.expand1 = nn.Linear(C, hidden)
        self.expand2 = nn.Linear(hidden, self.layout.onehot_width)
        self.rules = nn.Linear(self.layout.onehot_width, len(program.rules))
        self.consequents = nn.Linear(len(program.rules), C, bias=False)
        offsets = [o for h in program.heads for o in (h.relative or ())]
        self.max_offset = max([abs(o) for o in offsets] + [0])
        # (H, 2R + 1): which offsets each head may attend to; a head without a mask allows all
        self.register_buffer("relative", torch.ones(H, 2 * self.max_offset + 1, dtype=torch.bool))
        self.register_buffer("masked", torch.zeros(H, dtype=torch.bool))
        with torch.no_grad():
            self._compile()

    # -------------------------------------------------------------- weights
    def _head_width(self, head) -> int:
        qk = (
            0
            if head.query is None
            else max(self.program.variable(head.query).size, self.program.variable(head.key).size)
        )
        value = self.program.variable(head.value)
        return max(qk, 1 if value.kind == "numerical" else value.size)

    @staticmethod
    def _expand_width(v: Variable) -> int:
        return len(v.buckets) - 1 if v.kind == "numerical" else len(v.domain())

    def _compile(self) -> None:
        for param in self.parameters():
            param.zero_()
        self._compile_embeddings()
        for h, head in enumerate(self.program.heads):
            self._compile_head(h, head)
        self._compile_expansion()
        self._compile_rules()

    def _compile_embeddings(self) -> None:
        p, lay = self.program, self.layout
        for v in p.variables:
            start, width = lay.residual[v.name]
            if v.init.kind == "token":
                for tok, value in enumerate(v.init.table):
                    self.token_embedding.weight[tok, start : start + width] = torch.tensor(encode_value(v, value))
            elif v.init.kind == "position":
                for pos, value in enumerate(v.init.table):
                    self.position_embedding.weight[pos, start : start + width] = torch.tensor(encode_value(v, value))
            elif v.init.kind == "constant":
                self.token_embedding.weight[:, start : start + width] = torch.tensor(encode_value(v, v.init.value))

    def _compile_head(self, h: int, head) -> None:
        lay, D = self.layout, self.d_head
        base = h * D
        if head.query is not None:
            (qs, qw), (ks, kw) = lay.residual[head.query], lay.residual[head.key]
            for m in range(min(qw, kw)):  # value (or member) m of the query meets value m of the key
                self.q_proj.weight[base + m, qs + m] = self.lam
                self.k_proj.weight[base + m, ks + m] = 1.0
        (vs, vw), (os_, _) = lay.residual[head.value], lay.residual[head.output]
        for m in range(vw):
            self.v_proj.weight[base + m, vs + m] = 1.0
            self.o_proj.weight[os_ + m, base + m] = 1.0
        if head.relative is not None:
            self.masked[h] = True
            self.relative[h] = False
            for o in head.relative:
                self.relative[h, o + self.max_offset] = True

    def _compile_expansion(self) -> None:
        """Layers 1 and 2 of the MLP: every variable as a one-hot over its domain."""
        lay, unit = self.layout, 0
        W1, b1, W2 = self.expand1.weight, self.expand1.bias, self.expand2.weight
        for v in self.program.variables:
            start, width = lay.residual[v.name]
            out, n = lay.onehot[v.name]
            if v.kind == "numerical":
                self._numerical_expansion(v, start, unit, out)
                unit += n - 1
                continue
            for k, value in enumerate(v.domain()):
                if v.kind == "categorical":
                    W1[unit + k, start + value] = 1.0
                else:  # exactly this set: +1 per member, −1 per other, bias 1 − |set|
                    W1[unit + k, start : start + width] = -1.0
                    for m in value:
                        W1[unit + k, start + m] = 1.0
                    b1[unit + k] = 1.0 - len(value)
                W2[out + k, unit + k] = 1.0
            unit += n

    def _numerical_expansion(self, v: Variable, dim: int, unit: int, out: int) -> None:
        """Steps at the midpoints between buckets, then bucket k = step k−1 − step k."""
        W1, b1, W2, b2 = self.expand1.weight, self.expand1.bias, self.expand2.weight, self.expand2.bias
        b = v.buckets
        for k in range(len(b) - 1):
            gap, mid = b[k + 1] - b[k], (b[k] + b[k + 1]) / 2
            slope = 4.0 / gap  # 0 below mid − gap/8, 1 above mid + gap/8
            W1[unit + k, dim] = slope
            b1[unit + k] = 0.5 - slope * mid
        b2[out] = 1.0
        for k in range(len(b) - 1):
            W2[out + k, unit + k] -= 1.0
            W2[out + k + 1, unit + k] += 1.0

    def _compile_rules(self) -> None:
        """Layers 3 and 4: a unit per rule that fires on its conditions and writes its change."""
        p, lay = self.program, self.layout
        for r, rule in enumerate(p.rules):
            for name, value in rule.antecedent:
                v = p.variable(name)
                self.rules.weight[r, lay.onehot[name][0] + v.index(value)] = 1.0
            self.rules.bias[r] = 1.0 - len(rule.antecedent)
            target = p.variable(rule.variable)
            start, width = lay.residual[rule.variable]
            change = torch.tensor(encode_value(target, rule.new)) - torch.tensor(encode_value(target, rule.old))
            self.consequents.weight[start : start + width, r] = change

    # -------------------------------------------------------------- running
    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """(B, T) token ids -> (B, T, C) initial stream."""
        x = self.token_embedding(ids)
        if self.program.max_length:
            pos = torch.arange(ids.shape[1], device=ids.device).clamp(max=self.program.max_length - 1)
            x = x + self.position_embedding(pos)[None]
        return x

    def bias(self, valid: torch.Tensor) -> torch.Tensor:
        """(B, T) -> (B, H, T, T) additive attention bias: relative masks and padding."""
        T, R = valid.shape[1], self.max_offset
        pos = torch.arange(T, device=valid.device)
        offset = pos[None, :] - pos[:, None]  # (T, T): key − query
        inside = offset.abs() <= R
        allowed = self.relative[:, (offset.clamp(-R, R) + R)] & inside  # (H, T, T)
        allowed = allowed | ~self.masked[:, None, None]
        bias = torch.where(allowed, 0.0, -2.0 * self.lam).to(torch.float32)
        pad = torch.where(valid, 0.0, PAD_BIAS)[:, None, None, :]  # (B, 1, 1, T)
        return bias[None] + pad

    def attend(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        H, D = self.n_head, self.d_head
        q, k, v = (proj(x).view(B, T, H, D).transpose(1, 2) for proj in (self.q_proj, self.k_proj, self.v_proj))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=1.0)  # (B, H, T, D)
        return x + self.o_proj(y.transpose(1, 2).reshape(B, T, H * D))

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        onehot = clipped_relu(self.expand2(clipped_relu(self.expand1(x))))
        return x + self.consequents(clipped_relu(self.rules(onehot)))

    def halted(self, x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """(B,) whether every position of each example holds the halting value."""
        if self.program.halt is None:
            return torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
        name, value = self.program.halt
        dim = self.layout.residual[name][0] + value
        return ((x[..., dim] > 0.5) | ~valid).all(dim=1)

    def forward(
        self, ids: torch.Tensor, valid: torch.Tensor, max_layers: int | None = None, states: list | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, T) ids and valid -> (B, T) output values, (B,) layers made. With
        ``states`` (a list), each layer's (after attention, after MLP, running) is appended."""
        limit = max_layers if max_layers is not None else self.program.max_layers
        cap = limit if limit is not None else DEFAULT_LAYER_CAP
        x, bias = self.embed(ids), self.bias(valid)
        layers = torch.zeros(ids.shape[0], dtype=torch.long, device=ids.device)
        for _ in range(cap):
            running = ~self.halted(x, valid)
            if not bool(running.any()):
                break
            attended = self.attend(x, bias)
            new = self.mlp(attended)
            if states is not None:
                states.append((attended, new, running))
            x = torch.where(running[:, None, None], new, x)
            layers += running.long()
        start, width = self.layout.residual[self.program.output]
        return x[..., start : start + width].argmax(dim=-1), layers

    # -------------------------------------------------------------- symbols in and out
    def batch(
        self, texts: Sequence[str | Sequence[str]], *, markers: bool = True, device: str | torch.device | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, list[list[str]]]:
        """Token ids, valid mask and symbols of several inputs (markers added)."""
        tokens = [tokens_of(self.program, t, markers=markers) for t in texts]
        ids = [token_ids(self.program, t) for t in tokens]
        T = max([len(i) for i in ids] + [1])
        out = torch.zeros(len(ids), T, dtype=torch.long)
        valid = torch.zeros(len(ids), T, dtype=torch.bool)
        for b, row in enumerate(ids):
            out[b, : len(row)] = torch.tensor(row, dtype=torch.long)
            valid[b, : len(row)] = True
        return out.to(device), valid.to(device), tokens

    def decode(self, x: torch.Tensor, *, reset: bool = False) -> list[State]:
        """(T, C) one example's stream -> a state per position (a categorical
        variable with no dimension above one half reads as null; with
        ``reset``, after an MLP, a numerical head output near 0 too)."""
        rows = x.detach().cpu().tolist()
        out = []
        for row in rows:
            state = {}
            for v in self.program.variables:
                start, width = self.layout.residual[v.name]
                state[v.name] = _decode(v, row[start : start + width], reset)
            out.append(state)
        return out


def _decode(v: Variable, vec: list[float], reset: bool) -> Any:
    if v.kind == "numerical":
        value = vec[0]
        if v.head and reset and abs(value) < 1e-3:
            return None
        return min(v.buckets, key=lambda b: abs(b - value))
    if v.kind == "set":
        return frozenset(m for m, z in enumerate(vec) if z > 0.5)
    best = max(range(len(vec)), key=lambda m: vec[m])
    return best if vec[best] > 0.5 else None


def compile_program(program: AltaProgram, *, lam: float = 100.0) -> Compiled:
    """The compiled model of ``program``, in evaluation mode."""
    return Compiled(program, lam=lam).eval()
