"""Write the checkpoints of tests/nn/test_before.py with the invar of an
earlier commit, and what that invar computed from them.

    git archive REV invar | tar -x -C OLD
    PYTHONPATH=OLD python tests/nn/data/make_before.py tests/nn/data

Both are tiny (width 32, one layer): a ``dualpart`` copy model and a pure
``lexinvariant`` character language model, trained a few steps on the
fixtures. Beside each checkpoint, ``NAME.expected.pt`` holds the inputs and
the outputs of that invar (one thread, evaluation mode): the copy model's
teacher-forced scores and greedy strings, the language model's per-position
losses."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

import invar
from invar.encoding import collate_pairs
from invar.nn.lm import position_losses
from invar.tasks import copy, lm

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
SMALL = {"d_model": 32, "n_head": 2, "n_layer": 1, "d_ff": 64}


def trained(task: str, data: Path, arch: str, epochs: int, limit: int, path: Path):
    """``arch`` trained small on ``task`` (one thread, seed 1) and written to
    ``path`` without its resume state: the model."""
    invar.train(
        task=task,
        data=data,
        arch=arch,
        epochs=epochs,
        batch_size=16,
        limit=limit,
        lr=3e-3,
        threads=1,
        seed=1,
        out=path,
        overrides=SMALL,
    )
    path.with_name(path.stem + ".resume.pt").unlink()
    return invar.load_model(path)


def copy_model(out: Path) -> None:
    model = trained("copy", FIXTURES / "copy", "dualpart", 2, 64, out / "dualpart-copy.pt")
    strings = [ex.source for ex in copy.read_split(FIXTURES / "copy", "test")[:12]]
    programs = [copy.parse(s) for s in strings]
    net = model.network.eval()
    bos, eos = model.vocab.token_id("<bos>", "<bos>"), model.vocab.token_id("<eos>", "<eos>")
    with torch.no_grad():
        batch = collate_pairs([model.encode(p) for p in programs], bos=bos, eos=eos)
        scores = net(batch)
    torch.save(
        {"strings": strings, "scores": scores, "predictions": model.predict(programs)},
        out / "dualpart-copy.expected.pt",
    )


def language_model(out: Path) -> None:
    path = out / "lexinvariant-lm.pt"
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        lm.build(FIXTURES / "python", data, vocab="char", seq_len=48)
        model = trained("lm", data, "lexinvariant", 1, 32, path)
        windows = [ex.source for ex in lm.read_split(data, "train")[:6]]
    losses = position_losses(model.network, [model.encode(lm.parse(w)) for w in windows])
    torch.save(
        {"windows": windows, "losses": [torch.from_numpy(x) for x in losses]}, out / "lexinvariant-lm.expected.pt"
    )


def main() -> None:
    out = Path(sys.argv[1])
    torch.set_num_threads(1)
    copy_model(out)
    language_model(out)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    (out / "README.md").write_text(
        "Checkpoints written by the invar of an earlier commit (tests/nn/test_before.py):\n"
        f"made by make_before.py with the package of commit {rev.strip()} (before embed_scaling, norm_position,\n"
        "random_draw and random_vectors existed).\n"
    )
    print(json.dumps(sorted(p.name for p in out.iterdir())))


if __name__ == "__main__":
    main()
