"""Write the training states of tests/test_train.py's resume-before test with
the invar of an earlier commit: one per model kind, each cut mid-epoch.

    git archive REV invar | tar -x -C OLD
    PYTHONPATH=OLD python tests/nn/data/make_resume.py tests/nn/data

Each run (:data:`RUNS`: a pooled encoder on bhive, an encoder-decoder on
copy, a causal language model on character windows, all tiny) trains with a
state saved every :data:`SAVE_EVERY` steps and is stopped at the step after
the first save, so the state holds the first epoch's losses so far. The
state is written as ``resume-KIND.pt``; resumed by today's invar, the run
must end with the weights and history of an uninterrupted one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

import invar

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
SMALL = {"d_model": 32, "n_head": 2, "n_layer": 1, "d_ff": 64}
SAVE_EVERY = 2

#: kind -> the training arguments (``data`` is made by :func:`dataset`)
RUNS = {
    "pooled": dict(task="bhive", arch="renamer", epochs=2, batch_size=8, lr=3e-3, seed=1, overrides=SMALL),
    "encoder-decoder": dict(
        task="copy", arch="dualpart", epochs=2, batch_size=16, limit=48, lr=3e-3, seed=1, overrides=SMALL
    ),
    "causal-lm": dict(
        task="lm", arch="lexinvariant", epochs=2, batch_size=8, limit=32, lr=3e-3, seed=1, overrides=SMALL
    ),
}


def dataset(kind: str, root: Path) -> Path:
    """The run's dataset: built under ``root`` from the fixtures (bhive, lm), or the fixture itself (copy)."""
    if kind == "pooled":
        from invar.data import bhive

        bhive.build([str(FIXTURES / "x86" / "blocks.csv")], root / "bhive", jobs=1)
        return root / "bhive"
    if kind == "causal-lm":
        from invar.tasks import lm

        lm.build(FIXTURES / "python", root / "lm", vocab="char", seq_len=48)
        return root / "lm"
    return FIXTURES / "copy"


class _Cut(Exception):
    pass


def _cut(event: str, **info) -> None:
    if event == "step" and info["step"] == SAVE_EVERY + 1:  # the state of step SAVE_EVERY is saved
        raise _Cut


def cut_state(kind: str, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = dataset(kind, Path(tmp))
        model = Path(tmp) / "m.pt"
        try:
            invar.train(data=data, out=model, threads=1, save_every=SAVE_EVERY, progress=_cut, **RUNS[kind])
        except _Cut:
            pass
        shutil.copy(Path(tmp) / "m.resume.pt", out / f"resume-{kind}.pt")


def main() -> None:
    out = Path(sys.argv[1])
    torch.set_num_threads(1)
    for kind in RUNS:
        cut_state(kind, out)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    with open(out / "README.md", "a") as f:
        f.write(
            f"\nresume-*.pt: training states cut mid-epoch, made by make_resume.py with the package of commit "
            f"{rev.strip()}\n(before TrainConfig and the model kinds' wrappers existed).\n"
        )
    print(json.dumps(sorted(p.name for p in out.glob("resume-*.pt"))))


if __name__ == "__main__":
    main()
