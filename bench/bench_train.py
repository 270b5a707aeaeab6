"""Training throughput of every architecture against a stock
``torch.nn.TransformerEncoder`` of the same size, on the same batches.

    python bench/bench_train.py [--size tiny] [--blocks 4096] [--steps 30] [--repeat 3] [--threads 1]
        [--report train-throughput.json]

Real BHive blocks (at most 128 tokens) are encoded once and cut into the
same length-bucketed batches of 64 that ``invar train`` uses. Each model runs
full training steps (forward, MAPE loss, backward, AdamW) over the same
batches; the stock model is ``nn.Embedding`` + learned positions +
``nn.TransformerEncoder`` (pre-LayerNorm, GELU, the same width, heads, depth
and feed-forward width) + masked mean pooling + a linear head, with padding
as ``src_key_padding_mask``. The collation of batches (numpy to tensors,
masks included) is part of invar's timing, since training pays for it.
Models take turns step by step (so changes in the machine's load hit all of
them alike), ``--repeat`` passes; medians of examples per second. With
``--report`` every pass's seconds per model are written as JSON with the
machine and the load average; :func:`table` renders that report.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
from common import bhive_blocks, closed, finish, load_row, machine, median, opened

from invar.encoding import Vocab, encode
from invar.frontends.x86.hexblock import decode
from invar.nn.config import architectures, preset
from invar.nn.heads import masked_mean
from invar.nn.model import Model
from invar.tasks.bhive import mape_loss
from invar.train import _augment, _batches


class Stock(nn.Module):
    def __init__(self, n_tokens: int, config) -> None:
        super().__init__()
        self.embed = nn.Embedding(n_tokens, config.d_model)
        self.pos = nn.Embedding(config.max_len, config.d_model)
        layer = nn.TransformerEncoderLayer(
            config.d_model,
            config.n_head,
            config.ff_width,
            config.dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(
            layer, config.n_layer, norm=nn.LayerNorm(config.d_model), enable_nested_tensor=False
        )
        self.head = nn.Linear(config.d_model, 1)

    def forward(self, tokens: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        T = tokens.shape[1]
        x = self.embed(tokens) + self.pos(torch.arange(T)).unsqueeze(0)
        x = self.encoder(x, src_key_padding_mask=~valid)
        return self.head(masked_mean(x, valid)).squeeze(-1).exp()


def measure(args: argparse.Namespace) -> dict:
    """Seconds each model spends on the batches, per pass, the models taking turns step by step."""
    rng = random.Random(0)
    programs = [p for p in (decode(h) for h in rng.sample(bhive_blocks(), args.blocks)) if len(p.tokens) <= 128]
    vocab = Vocab.build(programs, min_count=2)
    encoded = [encode(p, vocab, canonical=True) for p in programs]
    labels = torch.rand(len(encoded)) * 5 + 0.5  # throughput is not the point here
    batches = _batches(np.asarray([len(e) for e in encoded]), 64, 0, 0, 1)[: args.steps]
    examples = sum(len(b) for b in batches)

    def run_invar(arch: str):
        torch.manual_seed(0)
        config = preset(arch, args.size).with_vocab(vocab)
        model = Model("bhive", config, vocab)
        opt = torch.optim.AdamW(model.network.parameters(), lr=1e-4, weight_decay=0.01)
        model.network.train()

        def step(k: int) -> None:
            idx = batches[k]
            items = [encoded[i] for i in idx]
            if config.augment:
                items = [_augment(e, vocab, k * 1000 + int(i)) for e, i in zip(items, idx)]
            loss = mape_loss(model.network(model.collate(items)), labels[torch.as_tensor(idx)])
            opt.zero_grad()
            loss.backward()
            opt.step()

        return step

    def run_stock():
        torch.manual_seed(0)
        config = preset("vanilla", args.size)
        model = Stock(len(vocab.tokens), config)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
        model.train()
        padded = []
        for idx in batches:  # collated once, outside the timing: the stock model's best case
            T = max(len(encoded[i]) for i in idx)
            tokens = torch.zeros(len(idx), T, dtype=torch.long)
            for b, i in enumerate(idx):
                tokens[b, : len(encoded[i])] = torch.from_numpy(encoded[i].tokens.astype(np.int64))
            padded.append((tokens, tokens != 0, labels[torch.as_tensor(idx)]))

        def step(k: int) -> None:
            tokens, valid, y = padded[k]
            loss = mape_loss(model(tokens, valid), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        return step

    runners = {"stock TransformerEncoder": run_stock()}
    runners.update({arch: run_invar(arch) for arch in architectures()})
    for step in runners.values():  # warm up
        step(0)
    # interleaved step by step, so a change in the machine's load hits every model alike
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.repeat):
        spent = dict.fromkeys(runners, 0.0)
        for k in range(len(batches)):
            for name, step in runners.items():
                t = time.perf_counter()
                step(k)
                spent[name] += time.perf_counter() - t
        for name in runners:
            times[name].append(spent[name])
    return {
        "batches": len(batches),
        "examples": examples,
        "mean_tokens": float(np.mean([len(encoded[i]) for b in batches for i in b])),
        "seconds": times,
    }


def table(report: dict) -> str:
    """The report as the markdown table docs/benchmarks/bhive.md shows: examples per second, medians over passes."""
    n = report["examples"]
    rates = {name: n / median(seconds) for name, seconds in report["seconds"].items()}
    stock = rates["stock TransformerEncoder"]
    lines = [
        f"| model ({report['batches']} batches, {n:,} examples, mean {report['mean_tokens']:.1f} tokens; "
        f"medians of {report['args']['repeat']} passes) | examples/s | relative to stock |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {rate:,.0f} | {rate / stock:.2f} |" for name, rate in rates.items()]
    lines.append(load_row(report, 1))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--blocks", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--report", default=None, help="write the measurements to this JSON file")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    started = time.time()
    report = opened(args, "train-throughput")
    report.update(measure(args))
    closed(report, started)
    print(f"machine: {machine()}; torch {torch.__version__}, {args.threads} thread(s)")
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
