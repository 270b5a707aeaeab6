"""What a dual-part LTL encoder keeps of an AP's random vector at
initialisation, with and without the interchangeable-token paper's sqrt(d)
input scaling (docs/benchmarks/ltl.md, "Dual-part inputs scaled by sqrt(d)").

A dual-part token vector has unit norm; pre-LN blocks add sublayer outputs
of a size that does not depend on the input's, so an unscaled identity is
soon outweighed by what the blocks add. Measured here before any training:
for every AP token of ``--num`` formulas (``invar data ltl``, 5 APs, sizes up
to ``--max-size``), the cosine between the AP's random vector and the
random coordinates of the encoder's stream (the last ``random_dims`` of the
width) at the input of each block and after the last, averaged over the AP
tokens; per scaling the mean ± sd over ``--seeds`` initialisations.

    python bench/bench_ltl_init.py --out DIR [--num 2000] [--max-size 5] [--size tiny]
                                   [--seeds 0 1 2 3 4] [--report PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from common import finish, mean_sd, opened

from invar.encoding import Vocab, add_pool, add_specials, collate_pairs, vocab_counts
from invar.frontends.ltl.generate import GeneratorConfig, generate_file
from invar.nn.config import preset
from invar.nn.model import Model
from invar.tasks import ltl

SCALINGS = ("none", "sqrtd")


def arguments(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the generated formulas go here")
    ap.add_argument("--num", type=int, default=2000, help="formulas generated (their training split is read)")
    ap.add_argument("--max-size", type=int, default=5)
    ap.add_argument("--size", default="tiny", help="the model preset")
    ap.add_argument("--batch", type=int, default=256, help="formulas measured")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--report", type=Path, default=None)
    return ap.parse_args(argv)


def formulas(args) -> list:
    raw = args.out / "ltl5.txt"
    if not raw.exists():
        args.out.mkdir(parents=True, exist_ok=True)
        generate_file(GeneratorConfig(num=args.num, aps=5, max_size=args.max_size, seed=0), raw, jobs=1)
    return [ltl.prepare(ltl.parse(ex.source)) for ex in ltl.read_split(raw, "train")[: args.batch]]


def _model(pairs: list, scaling: str, seed: int, size: str) -> Model:
    vocab = Vocab.from_counts(add_pool(add_specials(vocab_counts(pairs)), ltl.POOL, "ap"), min_count=1)
    overrides = {**ltl.arch_config("dualpart"), "embed_scaling": scaling, "dropout": 0.0}
    torch.manual_seed(seed)
    config = preset("dualpart", size, head="generate", seed=seed, **overrides).with_vocab(vocab)
    model = Model("ltl", config, vocab)
    model.network.eval()
    return model


def cosines(model: Model, pairs: list) -> list[float]:
    """Mean cosine over AP tokens of the stream's random coordinates with the
    AP's random vector: at the input of each encoder block, then after the last."""
    encoder, dr = model.network.encoder, model.network.config.random_dims
    seen: dict[str, list] = {"embed": [], "stream": []}
    hooks = [encoder.embed.register_forward_hook(lambda _m, _a, out: seen["embed"].append(out))]
    hooks += [block.register_forward_pre_hook(lambda _m, a: seen["stream"].append(a[0])) for block in encoder.blocks]
    hooks.append(encoder.blocks[-1].register_forward_hook(lambda _m, _a, out: seen["stream"].append(out)))
    bos, eos = (model.vocab.token_id(t, t) for t in ("<bos>", "<eos>"))
    batch = collate_pairs([model.encode(p) for p in pairs], bos=bos, eos=eos)
    with torch.no_grad():
        encoder(batch)
    for h in hooks:
        h.remove()
    aps = batch["referents"] > 0
    identity = seen["embed"][0][aps][:, -dr:]
    return [float(torch.cosine_similarity(x[aps][:, -dr:], identity, dim=-1).mean()) for x in seen["stream"]]


def table(report: dict) -> str:
    layers = len(report["rows"][0]["cosines"][0])
    points = ["the blocks' input"] + [f"after block {k}" for k in range(1, layers)]
    rows = ["| input scaling | seeds | " + " | ".join(points) + " |", "|---|---|" + "---|" * layers]
    for row in report["rows"]:
        by_point = list(zip(*row["cosines"]))
        cells = " | ".join(mean_sd(list(xs)) for xs in by_point)
        rows.append(f"| {row['scaling']} | {len(row['cosines'])} | {cells} |")
    return "\n".join(rows)


def main(argv=None) -> dict:
    args = arguments(argv)
    torch.set_num_threads(1)
    pairs = formulas(args)
    report = opened(args, "ltl-init", {"out": "DIR"})
    report["formulas"] = len(pairs)
    report["rows"] = [
        {"scaling": s, "cosines": [cosines(_model(pairs, s, seed, args.size), pairs) for seed in args.seeds]}
        for s in SCALINGS
    ]
    return finish(report, table, args.report)


if __name__ == "__main__":
    main()
