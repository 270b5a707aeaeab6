"""Standard (end-to-end) supervision on parity, beside the ALTA paper's Table 3.

Transformers trained from random weights on bit strings of lengths 0–20
(about as many per number of ones, the paper's D.1 train set) to say the
parity at the end-of-string token, and scored on strings of lengths 0–40 on
Table 3's slices (Length ≤ 20, Length > 20, Ones > 20). The grid is the
paper's: layers, weight sharing (one block applied at every layer, a
Universal Transformer) and positions (``relative``: rotary, RoPE;
``absolute``: a learned vector per position, so positions past 20 are never
trained). Each run stops when validation accuracy on held-out strings of
lengths 0–20 has not improved for ``--patience`` evaluations (every
``--eval-every`` steps), or at ``--steps``; the best evaluation's weights
are tested. Mean ± sd over ``--seeds``.

The paper's models are 512 wide (2,048 hidden, 6 heads of 64), trained with
Adafactor at 5e-4 for 50,000 steps with 8 or 40 layers; the defaults here
are CPU-sized (``--width 64 --layers 2 4``, Adam). The paper-scale grid, on
a GPU:

    python bench/bench_alta_end_to_end.py --layers 8 40 --width 512 --hidden 2048 --heads 8 \\
        --steps 50000 --lr 5e-4 --device cuda --report table3.json

    python bench/bench_alta_end_to_end.py [--layers 2 4] [--width 64] [--steps 6000] [--seeds 0 1 2]
        [--positions relative absolute] [--sharing no yes] [--threads 1] [--report alta-end-to-end.json]

With ``--report`` every run is written as JSON with the machine, torch's
version, the arguments and the load average (after each run, so that a long
grid keeps what it has done); :func:`table` renders that report, a row per
grid cell. The paper's Table 3 is :func:`paper_table`, quoted beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time

import torch
import torch.nn.functional as F
from torch import nn

from common import closed, finish, load_line, opened, so_far, spread

from invar.alta.trace import TABLE_2_SLICES, balanced_bits

#: Table 3 of the paper, as printed: (layers, weight sharing, positions) -> Length ≤ 20, Length > 20, Ones > 20
PAPER_TABLE_3 = {
    (8, "No", "Relative"): ("100%", "60%", "51%"),
    (8, "Yes", "Relative"): ("100%", "65%", "52%"),
    (40, "No", "Relative"): ("100%", "55%", "51%"),
    (40, "Yes", "Relative"): ("100%", "54%", "48%"),
    (8, "No", "Absolute"): ("100%", "49%", "50%"),
    (8, "Yes", "Absolute"): ("100%", "50%", "52%"),
    (40, "No", "Absolute"): ("100%", "50%", "51%"),
    (40, "Yes", "Absolute"): ("100%", "52%", "51%"),
}
#: token ids: the two bits, the end of the string, padding
ZERO, ONE, END, PAD = 0, 1, 2, 3
MAX_LENGTH = 40


def rotary(x: torch.Tensor) -> torch.Tensor:
    """RoPE on (B, H, T, D): each pair of dimensions rotated by its position times its frequency."""
    t, d = x.shape[-2], x.shape[-1]
    freq = 1.0 / (10000 ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    angle = torch.arange(t, device=x.device, dtype=torch.float32)[:, None] * freq[None, :]
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Block(nn.Module):
    """A pre-norm Transformer layer: self-attention (scaled_dot_product_attention) and a GeLU MLP."""

    def __init__(self, width: int, heads: int, hidden: int, rope: bool):
        super().__init__()
        self.heads, self.rope = heads, rope
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width))

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        if self.rope:
            q, k = rotary(q), rotary(k)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


class ParityModel(nn.Module):
    """Bits and an end token in; the parity, read at the end token, out."""

    def __init__(self, layers: int, sharing: bool, positions: str, width: int, heads: int, hidden: int):
        super().__init__()
        self.layers = layers
        self.embed = nn.Embedding(4, width)
        self.position = nn.Embedding(MAX_LENGTH + 1, width) if positions == "absolute" else None
        count = 1 if sharing else layers
        self.blocks = nn.ModuleList(Block(width, heads, hidden, positions == "relative") for _ in range(count))
        self.norm, self.out = nn.LayerNorm(width), nn.Linear(width, 2)

    def forward(self, ids: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        if self.position is not None:
            x = x + self.position(torch.arange(ids.shape[1], device=ids.device))[None]
        keep = ids != PAD
        for i in range(self.layers):
            x = self.blocks[i % len(self.blocks)](x, keep)
        return self.out(self.norm(x[torch.arange(len(ids), device=ids.device), ends]))


def batch(strings: list[list[str]], device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Token ids (bits, END, padding), the END positions and the parities."""
    width = max(len(s) for s in strings) + 1
    ids = torch.full((len(strings), width), PAD, dtype=torch.long)
    for row, s in enumerate(strings):
        ids[row, : len(s)] = torch.tensor([ONE if b == "1" else ZERO for b in s], dtype=torch.long)
        ids[row, len(s)] = END
    ends = torch.tensor([len(s) for s in strings])
    labels = torch.tensor([s.count("1") % 2 for s in strings])
    return ids.to(device), ends.to(device), labels.to(device)


@torch.inference_mode()
def predict(model: ParityModel, strings: list[list[str]], device: str, size: int = 512) -> list[int]:
    model.eval()
    out = []
    for i in range(0, len(strings), size):
        ids, ends, _ = batch(strings[i : i + size], device)
        out += model(ids, ends).argmax(-1).tolist()
    model.train()
    return out


def accuracy(model, strings, device) -> float:
    preds = predict(model, strings, device)
    return sum(p == s.count("1") % 2 for p, s in zip(preds, strings)) / len(strings)


def run_one(layers: int, sharing: bool, positions: str, seed: int, data: dict, args) -> dict:
    """Train one configuration to its early stop; its accuracy on the test slices."""
    torch.manual_seed(seed)
    random.seed(seed)
    model = ParityModel(layers, sharing, positions, args.width, args.heads, args.hidden).to(args.device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = random.Random(seed)
    train, valid = data["train"], data["valid"]
    best, best_step, best_state, waited, t0 = -1.0, 0, None, 0, time.perf_counter()
    for step in range(1, args.steps + 1):
        ids, ends, labels = batch(rng.sample(train, args.batch_size), args.device)
        loss = F.cross_entropy(model(ids, ends), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % args.eval_every == 0:
            acc = accuracy(model, valid, args.device)
            if acc > best:
                best, best_step, waited = acc, step, 0
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            else:
                waited += 1
                if waited >= args.patience:
                    break
    model.load_state_dict(best_state)
    test = data["test"]
    preds = predict(model, test, args.device)
    slices = {}
    for name, keep in TABLE_2_SLICES.items():
        hits = [p == s.count("1") % 2 for p, s in zip(preds, test) if keep(s)]
        slices[name] = sum(hits) / len(hits) if hits else math.nan
    return {
        "layers": layers,
        "sharing": sharing,
        "positions": positions,
        "seed": seed,
        "best_valid": best,
        "best_step": best_step,
        "steps_run": step,
        "seconds": round(time.perf_counter() - t0, 1),
        "parameters": sum(p.numel() for p in model.parameters()),
        **slices,
    }


def paper_table() -> str:
    """The paper's Table 3 as printed, every row (docs/benchmarks/alta.md quotes it)."""
    lines = [
        "| Layers | Weight Sharing | Positional Encoding | Length ≤ 20 | Length > 20 | Ones > 20 |",
        "|---|---|---|---|---|---|",
    ]
    for (layers, sharing, positions), cells in PAPER_TABLE_3.items():
        lines.append(f"| {layers} | {sharing} | {positions} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(report: dict) -> str:
    """docs/results.md's rows: each grid cell's slices (mean ± sd over seeds), and
    the paper's 8-layer row with the same sharing and positions beside (as printed)."""
    groups: dict[tuple, list[dict]] = {}
    for r in report["results"]:
        groups.setdefault((r["layers"], r["sharing"], r["positions"]), []).append(r)
    slices = list(TABLE_2_SLICES)
    lines = ["| model | " + " | ".join(slices) + " | the paper (Table 3, 8 layers) |", "|---|" + "---|" * 4]
    for (layers, sharing, positions), rows in groups.items():
        cells = " | ".join(spread([100 * r[s] for r in rows], "{:.1f}", " %") for s in slices)
        paper = PAPER_TABLE_3[(8, "Yes" if sharing else "No", positions.title())]
        model = f"end to end, {layers} layers, {positions}, {'shared' if sharing else 'no sharing'}"
        lines.append(f"| {model} | {cells} | *{' / '.join(paper)}* |")
    return "\n".join(lines)


def table(report: dict) -> str:
    """The report as docs/benchmarks/alta.md shows it: a row per grid cell (layers,
    weight sharing, positions) in the order run, each slice's accuracy and the best
    step as mean ± sd over the seeds; then the settings and the load average."""
    args = report["args"]
    groups: dict[tuple, list[dict]] = {}
    for r in report["results"]:
        groups.setdefault((r["layers"], r["sharing"], r["positions"]), []).append(r)
    slices = list(TABLE_2_SLICES)
    lines = [
        "| layers | weight sharing | positions | "
        + " | ".join(slices)
        + f" | best step (of {args['steps']:,}) | minutes a run |",
        "|---|---|---|" + "---|" * (len(slices) + 2),
    ]
    for (layers, sharing, positions), rows in groups.items():
        cells = " | ".join(spread([100 * r[s] for r in rows], "{:.1f}", " %") for s in slices)
        best = spread([r["best_step"] for r in rows], "{:,.0f}")
        minutes = spread([r["seconds"] / 60 for r in rows], "{:.1f}")
        lines.append(f"| {layers} | {'yes' if sharing else 'no'} | {positions} | {cells} | {best} | {minutes} |")
    seeds = sorted({r["seed"] for r in report["results"]})
    capped = sum(r["best_step"] == args["steps"] for r in report["results"])
    which = f"seed {seeds[0]}" if len(seeds) == 1 else f"mean ± sd over seeds {', '.join(map(str, seeds))}"
    lines += [
        "",
        f"One run per grid cell and seed ({which}): width {args['width']}, {args['heads']} heads, "
        f"MLP {args['hidden']}, Adam at {args['lr']:g}, batches of {args['batch_size']}; {args['train']:,} "
        f"training strings of lengths 0–20; validation on 2,000 strings of lengths 0–20 every "
        f"{args['eval_every']:,} steps, patience {args['patience']}, at most {args['steps']:,} steps; "
        f"{args['test']:,} test strings of lengths 0–40. Runs whose best evaluation was at the cap (still "
        f"improving): {capped} of {len(report['results'])}. Device {args['device']}, torch {report['torch']}, "
        f"{args['threads']} thread{'s' if args['threads'] != 1 else ''}.",
    ]
    if "load_average_after" in report:
        lines += ["", load_line(report)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--sharing", nargs="+", default=["no", "yes"], choices=["no", "yes"])
    ap.add_argument("--positions", nargs="+", default=["relative", "absolute"], choices=["relative", "absolute"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--patience", type=int, default=8)
    ap.add_argument("--train", type=int, default=50000)
    ap.add_argument("--test", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--report", default=None, help="write the runs to this JSON file")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    data = {
        "train": balanced_bits(args.train, 0, 20, seed=1),
        "valid": balanced_bits(2000, 0, 20, seed=2),
        "test": balanced_bits(args.test, 0, MAX_LENGTH, seed=3),
    }
    report = {**opened(args, "alta-end-to-end"), "results": []}
    started = time.perf_counter()
    for positions in args.positions:
        for layers in args.layers:
            for sharing in args.sharing:
                for seed in args.seeds:
                    r = run_one(layers, sharing == "yes", positions, seed, data, args)
                    report["results"].append(r)
                    print(json.dumps(r), flush=True)
                    so_far(report, args.report)
    report["wall_seconds"] = time.perf_counter() - started
    print(f"machine: {report['machine']}; torch {report['torch']}")
    return finish(closed(report), table, args.report)


if __name__ == "__main__":
    main()
