"""Training on the fixture blocks: every architecture learns, seeds reproduce
weights, a killed run resumes exactly, and two processes train together."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import invar
from invar import checkpoint
from invar.data import bhive
from invar.nn.config import architectures
from invar.errors import DataError, ModelError
from invar.train import _lr, plateau_halvings, resume_path, train
from tests.conftest import FIXTURES, ROOT, torchrun

QUICK = dict(batch_size=4, threads=1, lr=1e-3)
#: three batches of the 37 training blocks: enough for what a run does between its steps (seeds, saves,
#: resumes, schedules, stops), which the tests below compare run against run
SHORT = dict(QUICK, limit=12)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """The fixture blocks labelled by llvm-mca: 37 train, 1 valid, 1 test."""
    out = tmp_path_factory.mktemp("bhive")
    bhive.build([str(FIXTURES / "x86" / "blocks.csv")], out, jobs=1)
    return out


def _programs(dataset, split="train"):
    from invar.tasks.bhive import TASK

    return [TASK.parse(ex.source) for ex in bhive.read_split(dataset, split)]


def _cut_and_resumed(epoch: int, out, **kw):
    """A run interrupted once ``epoch`` ends, then resumed: the resumed run's result."""

    def interrupt(event, **info):
        if event == "epoch" and info["epoch"] == epoch:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(out=out, progress=interrupt, **kw)
    return train(out=out, resume=True, **kw)


@pytest.mark.parametrize("arch", architectures())
def test_every_architecture_learns(arch, dataset, tmp_path):
    # the first 24 blocks (6 batches): the last epoch's loss is at most 0.37 of the first's (0.70 on all 37)
    result = train(data=dataset, arch=arch, epochs=4, out=tmp_path / "m.pt", seed=1, limit=24, **QUICK)
    losses = [h["train_loss"] for h in result.history]
    assert len(losses) == 4 and losses[-1] < 0.8 * losses[0], losses
    model = invar.load_model(tmp_path / "m.pt")
    assert (model.task, model.config.arch, model.config.size) == ("bhive", arch, "tiny")
    assert model.metrics["best_epoch"] == result.best_epoch
    preds = model.predict(_programs(dataset)[:5])
    assert len(preds) == 5 and all(isinstance(p, float) and p > 0 for p in preds)


def test_checkpoint_round_trips_and_predicts_identically(dataset, tmp_path):
    train(data=dataset, arch="spe", epochs=2, out=tmp_path / "a.pt", **SHORT)
    programs = _programs(dataset)
    first = invar.load_model(tmp_path / "a.pt")
    checkpoint.save(tmp_path / "b.pt", checkpoint.model_payload(first))
    second = invar.load_model(tmp_path / "b.pt")
    assert first.config == second.config and first.vocab.to_dict() == second.vocab.to_dict()
    for k, v in first.network.state_dict().items():
        assert torch.equal(v, second.network.state_dict()[k])
    assert first.predict(programs) == second.predict(programs) == invar.load_model(tmp_path / "a.pt").predict(programs)
    encoded = [first.encode(p) for p in programs]
    assert first.predict_encoded(encoded) == first.predict(programs)


def _weights(path):
    return checkpoint.load(path)["state_dict"]


def test_same_seed_same_weights(dataset, tmp_path):
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        train(data=dataset, arch="augmented", epochs=2, out=tmp_path / f"{name}.pt", seed=seed, **SHORT)
    a, b, c = (_weights(tmp_path / f"{n}.pt") for n in "abc")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "invar", "train", *args]


def _never_learning(dataset, epochs: int) -> list[str]:
    """The options of a vanilla run that cannot improve (learning rate 0), three batches of 4 on one thread."""
    options = ("--arch", "vanilla", "--epochs", epochs, "--batch-size", "4", "--threads", "1", "--lr", "0")
    options += ("--limit", "12")
    return ["--data", str(dataset), *map(str, options)]


def test_killed_training_resumes_where_it_stopped(dataset, tmp_path, invoke):
    """Kill a run mid-epoch (SIGKILL), rerun with --resume (in-process: the
    killed run is the subprocess): it continues from the last saved state
    and ends with exactly the weights of a run that was never interrupted.
    The checkpoint file is never left half-written."""
    args = [
        "--data",
        str(dataset),
        "--arch",
        "lexinvariant",
        "--epochs",
        "2",
        "--batch-size",
        "4",
        "--threads",
        "1",
        "--seed",
        "4",
    ]
    train(data=dataset, arch="lexinvariant", epochs=2, out=tmp_path / "whole.pt", batch_size=4, threads=1, seed=4)
    out = tmp_path / "cut.pt"
    state = resume_path(out)
    proc = subprocess.Popen(
        _cli(*args, "--out", str(out), "--save-every", "3"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    try:
        while time.time() < deadline and proc.poll() is None:
            if state.exists():  # the first state saved mid-epoch: most of the run is still ahead
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    saved = checkpoint.load(state, kind="resume")
    assert (saved["epoch"], saved["step"]) < (2, 0)
    if out.exists():
        invar.load_model(out)  # whatever was there is whole
    # a kill during a save leaves write_atomic's temporary file (planted here:
    # SIGKILL cannot be aimed at the write); the next run removes it
    for path in (out, state):
        (tmp_path / f".{path.name}.k1ll3d.tmp").write_bytes(b"torn")
    result = invoke("train", *args, "--out", out, "--resume", "--save-every", "3")
    assert result.exit_code == 0, result.stderr
    assert f"resuming at epoch {saved['epoch'] + 1}, step {saved['step']}" in result.stderr
    whole, cut = _weights(tmp_path / "whole.pt"), _weights(out)
    assert all(torch.equal(whole[k], cut[k]) for k in whole)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # the epoch that was cut reports the loss of all its steps, as the uninterrupted run does
    history = invar.load_model(out).metrics["history"]
    assert history == [
        {**h, "seconds": c["seconds"]}
        for h, c in zip(invar.load_model(tmp_path / "whole.pt").metrics["history"], history)
    ]
    if saved["step"]:  # killed mid-epoch, as it almost always is
        assert f"({saved['step']} of them before the resume)" in result.stderr


def test_a_resumed_epoch_without_saved_losses_says_which_steps_its_loss_covers(dataset, tmp_path):
    """A training state saved without the epoch's losses so far (by an older
    invar): the resumed epoch's loss covers the resumed steps only, and the
    log and the history say so."""
    out = tmp_path / "m.pt"
    train(data=dataset, arch="renamer", epochs=1, out=out, save_every=3, **QUICK)
    state = resume_path(out)
    saved = checkpoint.load(state, kind="resume")
    cut = {k: v for k, v in saved.items() if k != "epoch_losses"}
    checkpoint.save(state, {**cut, "epoch": 0, "step": 3, "history": []})
    events = []
    result = train(
        data=dataset,
        arch="renamer",
        epochs=1,
        out=out,
        save_every=3,
        resume=True,
        progress=lambda event, **info: events.append((event, info)),
        **QUICK,
    )
    (epoch,) = [info for event, info in events if event == "epoch"]
    steps = epoch["steps"]
    assert epoch["loss_steps"] == [4, steps] and result.history[0]["train_loss_steps"] == [4, steps]
    from invar.cli.train import _loss

    assert _loss(epoch).endswith(f"over steps 4-{steps} of {steps} only (resumed; the state held no earlier losses)")


def test_a_state_saved_before_newer_config_fields_still_resumes(dataset, tmp_path):
    """Config fields added later default to what older configs meant, so a
    training state written without them resumes; a state for another
    setting does not."""
    out = tmp_path / "m.pt"
    train(data=dataset, arch="renamer", epochs=1, out=out, **SHORT)
    state = resume_path(out)
    saved = checkpoint.load(state, kind="resume")
    older = {k: v for k, v in saved["config"].items() if k not in ("beam", "max_output", "decoder_layers")}
    checkpoint.save(state, {**saved, "config": older})
    result = train(data=dataset, arch="renamer", epochs=2, out=out, resume=True, **SHORT)
    assert result.epochs == 2 and len(result.history) == 2
    checkpoint.save(state, {**saved, "config": {**older, "d_model": 64}})
    with pytest.raises(invar.errors.ModelError, match="other settings"):
        train(data=dataset, arch="renamer", epochs=2, out=out, resume=True, **SHORT)


def test_two_processes_with_torchrun(dataset, tmp_path):
    out = tmp_path / "ddp.pt"
    options = ("--arch", "renamer", "--epochs", "1", "--batch-size", "8", "--threads", "1")
    result = torchrun("train", "--data", dataset, *options, "--out", out)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "2 processes" in result.stderr
    assert result.stdout.count("wrote ") == 1  # only process 0 reports and writes
    model = invar.load_model(out)
    assert model.metrics["best_epoch"] >= 1 and len(model.predict(_programs(dataset)[:3])) == 3


def test_long_programs_are_skipped_and_counted(dataset, tmp_path):
    result = train(data=dataset, arch="vanilla", epochs=1, out=tmp_path / "m.pt", max_len=16, **QUICK)
    lengths = [len(p.tokens) for p in _programs(dataset)] + [len(p.tokens) for p in _programs(dataset, "valid")]
    assert result.too_long == sum(n > 16 for n in lengths) > 0
    assert result.n_train == sum(n <= 16 for n in lengths[:-1])
    model = invar.load_model(tmp_path / "m.pt")
    long_program = next(p for p in _programs(dataset) if len(p.tokens) > 16)
    with pytest.raises(invar.errors.ModelError, match="takes 1 to 16"):
        model.predict([long_program])


def test_limit_and_the_encoding_cache(dataset, tmp_path):
    result = train(data=dataset, arch="renamer", epochs=1, out=tmp_path / "m.pt", limit=12, **QUICK)
    assert (result.n_train, result.n_valid) == (12, 1)
    cached = sorted(p.name.split("-")[0] for p in (dataset / "cache").iterdir())
    assert "vocab" in cached and "train" in cached and "valid" in cached


def _stop_expected(history: list, patience: int, metric: str) -> tuple[int | None, int]:
    """Where a run with ``patience`` stops, read off an unstopped run's
    history: (the last epoch it trains, or None; its best epoch then)."""
    best, best_epoch = None, 0
    for entry in history:
        if best_epoch and entry["epoch"] - 1 - best_epoch >= patience:
            return entry["epoch"] - 1, best_epoch
        if best is None or entry[metric] < best:
            best, best_epoch = entry[metric], entry["epoch"]
    return None, best_epoch


def _without_seconds(history: list) -> list:
    return [{k: v for k, v in h.items() if k != "seconds"} for h in history]


@pytest.fixture(scope="module")
def unstopped(dataset, tmp_path_factory):
    """The 8-epoch vanilla run without patience at a learning rate, once per rate for the module."""
    runs = {}

    def run(lr: float):
        if lr not in runs:
            out = tmp_path_factory.mktemp("whole") / "whole.pt"
            runs[lr] = train(data=dataset, arch="vanilla", epochs=8, out=out, seed=3, **{**SHORT, "lr": lr})
        return runs[lr]

    return run


@pytest.mark.parametrize("lr, patience", [(0.0, 3), (1e-3, 2), (3e-3, 1)])  # best epoch 1 or 2, weights moving or not
def test_patience_stops_early_and_keeps_the_best_epoch(dataset, unstopped, tmp_path, lr, patience):
    """A run with --patience is the unstopped run cut where ``patience``
    epochs in a row brought no better validation MAPE (a learning rate of 0
    never improves after epoch 1); its checkpoint is the best epoch's."""
    quick = {**SHORT, "lr": lr}
    whole = unstopped(lr)
    stop, best_epoch = _stop_expected(whole.history, patience, "valid_MAPE")
    if lr == 0:
        assert (stop, best_epoch) == (1 + patience, 1)
    cut = train(data=dataset, arch="vanilla", epochs=8, out=tmp_path / "cut.pt", seed=3, patience=patience, **quick)
    assert cut.stopped_at == stop and cut.patience == patience and cut.best_epoch == best_epoch
    assert _without_seconds(cut.history) == _without_seconds(whole.history[: stop or 8])
    model = invar.load_model(tmp_path / "cut.pt")
    assert model.metrics["best_epoch"] == best_epoch and len(model.metrics["history"]) == best_epoch
    from invar.tasks.bhive import TASK

    valid = list(bhive.read_split(dataset, "valid"))
    predicted = model.predict([TASK.parse(ex.source) for ex in valid])
    assert TASK.metric(np.array(predicted), np.array([ex.label for ex in valid])) == pytest.approx(cut.best_metric)


def test_patience_resumes_exactly(dataset, tmp_path):
    """Interrupted after epoch 2 and resumed, a run with --patience stops
    where the uninterrupted one stopped, with the same weights and history;
    resuming a run that has already stopped stops again at once."""
    same = dict(data=dataset, arch="renamer", epochs=8, seed=2, patience=2, **{**SHORT, "lr": 0.0})
    whole = train(out=tmp_path / "whole.pt", **same)
    assert whole.stopped_at == 3

    def interrupt(event, **info):
        if event == "epoch" and info["epoch"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(out=tmp_path / "cut.pt", progress=interrupt, **same)
    events = []
    cut = train(out=tmp_path / "cut.pt", resume=True, progress=lambda event, **info: events.append(event), **same)
    assert cut.resumed_from == (2, 0) and cut.stopped_at == 3 and "stop" in events
    assert _without_seconds(cut.history) == _without_seconds(whole.history)
    a, b = _weights(tmp_path / "whole.pt"), _weights(tmp_path / "cut.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    again = train(out=tmp_path / "cut.pt", resume=True, **same)
    assert again.stopped_at == 3 and len(again.history) == 3


def test_a_stopped_run_resumed_with_more_patience_goes_on_as_if_never_stopped(dataset, tmp_path):
    """Stopped by a patience of 1, then resumed with none, a run trains on
    from the epoch where it stopped (not from scratch, not refused) and
    ends with the history and weights of one that never had a patience
    (exactness of the resumed state itself: the tests above)."""
    quick = {**SHORT, "lr": 0.0}
    whole = train(data=dataset, arch="renamer", epochs=4, out=tmp_path / "whole.pt", seed=2, **quick)
    stopped = train(data=dataset, arch="renamer", epochs=4, out=tmp_path / "cut.pt", seed=2, patience=1, **quick)
    assert stopped.stopped_at == 2 and len(stopped.history) == 2
    resumed = train(data=dataset, arch="renamer", epochs=4, out=tmp_path / "cut.pt", seed=2, resume=True, **quick)
    assert resumed.stopped_at is None and resumed.resumed_from[0] == 2 and len(resumed.history) == 4
    assert _without_seconds(resumed.history) == _without_seconds(whole.history)
    a, b = _weights(tmp_path / "whole.pt"), _weights(tmp_path / "cut.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_patience_on_the_command_line(dataset, tmp_path, invoke):
    args = ["train", *_never_learning(dataset, 6), "--patience", "2", "--format", "json"]
    result = invoke(*args, "--out", tmp_path / "m.pt")
    assert result.exit_code == 0, result.stderr
    import json

    summary = json.loads(result.stdout)
    assert (summary["best_epoch"], summary["epochs_run"], summary["stopped_early"]) == (1, 3, True)
    assert "stopped after epoch 3: no better validation in 2 epochs (best: epoch 1)" in result.stderr
    assert invoke(*args[:-4], "--patience", "0", "--out", tmp_path / "n.pt").exit_code == 2


@pytest.mark.parametrize(
    "metrics, plateau, lower, halvings",
    [
        ([], 3, True, 0),
        ([5.0], 1, True, 0),
        ([5.0, 4.0, 3.0, 2.0], 1, True, 0),  # better every epoch
        ([5.0, 5.0, 5.0, 5.0], 1, True, 3),  # equal is not better
        ([5.0, 6.0, 7.0, 4.0, 4.5, 4.5], 2, True, 2),  # 2 bad, better, 2 bad
        ([5.0, 6.0, 6.0, 6.0, 6.0, 6.0], 2, True, 2),  # counts afresh after a halving
        ([5.0, 6.0, 6.0, 6.0, 6.0, 6.0], 2, False, 2),  # higher is better: 6 is better once, then 4 bad
        ([5.0, 6.0, 6.0, 6.0, 6.0, 6.0], 3, False, 1),
        ([0.5, float("nan"), float("nan")], 2, True, 1),  # a nan metric is never better
    ],
)
def test_plateau_halvings(metrics, plateau, lower, halvings):
    assert plateau_halvings(metrics, plateau, lower) == halvings


@pytest.mark.parametrize(
    "step, schedule, halvings, lr",
    [
        (0, "cosine", 0, 1e-3 / 50),
        (0, "plateau", 0, 1e-3 / 40),
        (0, "plateau", 1, 1e-3 / 80),
        (39, "plateau", 0, 1e-3),
        (40, "plateau", 0, 1e-3),
        (700, "plateau", 3, 1e-3 / 8),
        (999, "plateau", 0, 1e-3),
        (49, "cosine", 0, 1e-3),
        (999, "cosine", 0, 1e-4),  # cosine ends at a tenth of the peak
        (50, "cosine", 2, 1e-3),  # cosine has no halvings
    ],
)
def test_learning_rate_schedules(step, schedule, halvings, lr):
    """1,000 steps in epochs of 40: cosine warms up over 5 % of the steps
    (50), plateau over the first epoch."""
    assert _lr(step, 1000, 1e-3, schedule, halvings, 40) == pytest.approx(lr, rel=1e-4)


def test_the_plateau_schedule_halves_on_plateaus_and_resumes_exactly(dataset, tmp_path):
    """Each epoch trains at the peak rate halved once per plateau of the
    validation metric before it; interrupted and resumed, the run ends as
    the uninterrupted one; a state saved under the cosine schedule does not
    resume under this one."""
    kw = dict(data=dataset, arch="vanilla", epochs=10, seed=4, schedule="plateau", plateau=1, patience=4, **SHORT)
    whole = train(out=tmp_path / "whole.pt", **kw)
    metrics = [h["valid_MAPE"] for h in whole.history]
    lrs = [h["lr"] for h in whole.history]
    assert lrs == [
        pytest.approx(QUICK["lr"] * 0.5 ** plateau_halvings(metrics[:i], 1, True)) for i in range(len(metrics))
    ]
    assert whole.schedule == "plateau" and whole.halvings == plateau_halvings(metrics[:-1], 1, True) >= 1
    assert min(lrs) < QUICK["lr"]
    cut = _cut_and_resumed(3, tmp_path / "cut.pt", **kw)
    assert cut.resumed_from == (3, 0) and cut.stopped_at == whole.stopped_at
    assert _without_seconds(cut.history) == _without_seconds(whole.history)
    a, b = _weights(tmp_path / "whole.pt"), _weights(tmp_path / "cut.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    cosine = {**{k: v for k, v in kw.items() if k != "plateau"}, "schedule": "cosine", "epochs": 2}
    train(out=tmp_path / "cos.pt", **cosine)
    with pytest.raises(ModelError, match="other settings"):
        train(out=tmp_path / "cos.pt", resume=True, **{**kw, "epochs": 3})


def test_the_schedule_on_the_command_line(dataset, tmp_path, invoke):
    args = ["train", *_never_learning(dataset, 3), "--format", "json"]
    result = invoke(*args, "--schedule", "plateau", "--plateau", "1", "--out", tmp_path / "m.pt")
    assert result.exit_code == 0, result.stderr
    import json

    summary = json.loads(result.stdout)
    # the learning rate 0 never improves on epoch 1: halved after epoch 2 (used by epoch 3) and after epoch 3 (unused)
    assert (summary["schedule"], summary["lr_halvings"], summary["epochs_run"]) == ("plateau", 1, 3)
    assert (
        "learning rate halved 1 time"
        in invoke(*args[:-2], "--schedule", "plateau", "--plateau", "1", "--out", tmp_path / "t.pt").stdout
    )
    for bad in (["--schedule", "step"], ["--plateau", "0"], ["--schedule", "plateau", "--patience", "5"]):
        run = invoke(*args, *bad, "--out", tmp_path / "n.pt")
        assert run.exit_code == 2, run.stderr


def test_fp32_is_the_default_and_tf32_changes_nothing_on_a_cpu(dataset, tmp_path):
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    for name, kw in (("a", {}), ("b", {"precision": "fp32"}), ("c", {"precision": "tf32"})):
        train(data=dataset, arch="renamer", epochs=1, out=tmp_path / f"{name}.pt", seed=3, **SHORT, **kw)
    a, b, c = (_weights(tmp_path / f"{n}.pt") for n in "abc")
    assert all(torch.equal(a[k], b[k]) and torch.equal(a[k], c[k]) for k in a)
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before


def _lm_windows(tmp_path):
    from tests.conftest import char_windows

    return char_windows(tmp_path / "lm")


@pytest.mark.parametrize(
    "task, data, arch, limit",  # limit: enough programs for the loss to fall in two epochs
    [
        ("bhive", None, "renamer", 32),
        ("copy", FIXTURES / "copy", "dualpart", 16),
        ("lm", _lm_windows, "lexinvariant", 16),
    ],
)
def test_bf16_steps_learn_and_keep_float32_weights(task, data, arch, limit, dataset, tmp_path):
    data = dataset if data is None else data(tmp_path) if callable(data) else data
    quick = dict(task=task, data=data, arch=arch, epochs=2, seed=1, batch_size=8, threads=1, lr=1e-3, limit=limit)
    low = train(out=tmp_path / "bf16.pt", precision="bf16", **quick)
    train(out=tmp_path / "fp32.pt", **quick)
    losses = [h["train_loss"] for h in low.history]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0], losses
    low_w, full_w = _weights(tmp_path / "bf16.pt"), _weights(tmp_path / "fp32.pt")
    assert all(w.dtype != torch.bfloat16 for w in low_w.values())
    assert not all(torch.equal(low_w[k], full_w[k]) for k in low_w)  # the steps did run in bfloat16
    assert invar.load_model(tmp_path / "bf16.pt").metrics["best_epoch"] == low.best_epoch


def test_an_unknown_precision_is_a_usage_error(dataset, tmp_path, invoke):
    from invar.errors import UsageError

    with pytest.raises(UsageError, match="--precision fp16: choose from fp32, tf32, bf16"):
        train(data=dataset, arch="vanilla", epochs=1, out=tmp_path / "m.pt", precision="fp16", **QUICK)
    args = [
        "--data",
        str(dataset),
        "--arch",
        "vanilla",
        "--epochs",
        "1",
        "--out",
        str(tmp_path / "m.pt"),
        "--precision",
        "fp16",
    ]
    bad = invoke("train", *args)
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "fp16" in bad.stderr


# ------------------------------------------------- the papers' recipes as options
SEQ = dict(task="copy", data=FIXTURES / "copy", batch_size=16, threads=1, lr=1e-3, limit=32)


def _optimiser_groups(out) -> list[dict]:
    return checkpoint.load(resume_path(out), kind="resume")["optimizer"]["param_groups"]


@pytest.mark.parametrize("weight_decay, betas", [(0.01, (0.9, 0.999)), (0.1, (0.9, 0.95))])
def test_the_optimiser_options_reach_the_optimiser(weight_decay, betas, tmp_path):
    """AdamW's weight decay (on matrices only) and betas, as given: the
    interchangeable-token paper's authors' 0.1 and 0.95 beside the defaults."""
    train(arch="dualpart", epochs=1, out=tmp_path / "m.pt", weight_decay=weight_decay, betas=betas, **SEQ)
    decay, no_decay = _optimiser_groups(tmp_path / "m.pt")
    assert decay["weight_decay"] == weight_decay and no_decay["weight_decay"] == 0.0
    assert tuple(decay["betas"]) == tuple(no_decay["betas"]) == betas


def test_the_recipe_on_the_command_line(tmp_path):
    """Every option of the authors' recipe reaches the model's config or the
    optimiser; a time limit of 0 stops after the first epoch."""
    import json

    from typer.testing import CliRunner

    from invar.cli.app import app

    out = tmp_path / "m.pt"
    args = [
        "train",
        "--task",
        "copy",
        "--data",
        str(FIXTURES / "copy"),
        "--arch",
        "dualpart",
        "--limit",
        "32",
        "--batch-size",
        "16",
        "--threads",
        "1",
        "--epochs",
        "3",
        "--out",
        str(out),
        "--heads",
        "8",
        "--norm-position",
        "post",
        "--random-draw",
        "batch",
        "--weight-decay",
        "0.1",
        "--beta2",
        "0.95",
        "--embed-scaling",
        "none",
        "--pool-size",
        "8",
        "--time-limit",
        "0",
        "--format",
        "json",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["epochs_run"], summary["stopped_early"]) == (1, True)
    config = invar.load_model(out).config
    assert (config.n_head, config.norm_position, config.random_draw, config.embed_scaling, config.pool_size) == (
        8,
        "post",
        "batch",
        "none",
        8,
    )
    decay, _ = _optimiser_groups(out)
    assert decay["weight_decay"] == 0.1 and tuple(decay["betas"]) == (0.9, 0.95)
    plain = CliRunner().invoke(app, args[:17] + ["--out", str(tmp_path / "p.pt"), "--epochs", "1"])
    assert plain.exit_code == 0, plain.output
    config = invar.load_model(tmp_path / "p.pt").config  # options not given keep the architecture's
    assert (config.n_head, config.norm_position, config.random_draw, config.embed_scaling, config.pool_size) == (
        2,
        "pre",
        "sequence",
        "sqrtd",
        0,
    )


@pytest.mark.parametrize("pool_size, expected", [(0, 52), (8, 8), (5, 5)])
def test_the_augmented_pool_is_the_size_asked(pool_size, expected, tmp_path):
    """The vocabulary holds the training symbols (a-e) and the pool's first
    ``pool_size`` (0: all 52), and augmented renames into those only."""
    from invar.tasks import copy
    from invar.train import _augment_into, pool_of

    overrides = {"pool_size": pool_size} if pool_size else None
    train(arch="augmented", epochs=1, out=tmp_path / "m.pt", overrides=overrides, **SEQ)
    model = invar.load_model(tmp_path / "m.pt")
    names = {t for t, ok in zip(model.vocab.tokens, model.vocab.interchangeable) if ok}
    assert names == set(copy.POOL[:expected]) and model.config.pool_size == pool_size
    pool = pool_of(copy.TASK, pool_size)
    assert list(pool) == list(copy.POOL[:expected])
    enc = model.encode(copy.parse("abcab"))
    seen = set()
    for seed in range(200):
        out = _augment_into(enc, model.vocab, pool, seed)
        seen |= {model.vocab.tokens[i] for i in out.tokens}
    assert seen <= set(pool) and len(seen) == expected  # every name of the pool, and no other, is reached


def test_a_pool_larger_than_the_tasks_is_refused(tmp_path):
    with pytest.raises(ModelError, match="pool holds 52 names"):
        train(arch="augmented", epochs=1, out=tmp_path / "m.pt", overrides={"pool_size": 60}, **SEQ)


@pytest.mark.parametrize(
    "task, dataset, written_for", [("names", "blocks", "bhive"), ("lm", "blocks", "bhive"), ("bhive", "names", "names")]
)
def test_a_dataset_written_for_another_task_is_refused_by_its_manifest(task, dataset, written_for, tmp_path):
    data = FIXTURES / "blocks"
    if dataset == "names":  # the manifest alone: the refusal comes before any file is read
        data = tmp_path / "names"
        data.mkdir()
        (data / "meta.json").write_text('{"invar": "names", "task": "names", "languages": ["python"]}')
    with pytest.raises(DataError, match=f"is a {written_for} dataset, not a {task} one: train it with --task") as err:
        train(task=task, data=data, arch="vanilla", epochs=1, out=tmp_path / "m.pt", threads=1)
    assert err.value.path == str(data)


@pytest.mark.parametrize(
    "time_limit, patience, epochs_run, stopped_by",
    [
        (0, None, 1, "time_limit"),  # stops after the first epoch, whatever the machine
        (None, 1, 2, "patience"),  # learning rate 0: no epoch improves on the first
        (3600, None, 3, None),  # a limit not reached: every epoch
    ],
)
def test_a_time_limit_stops_after_the_epoch_that_passes_it(
    time_limit, patience, epochs_run, stopped_by, dataset, tmp_path
):
    result = train(
        data=dataset,
        arch="vanilla",
        epochs=3,
        out=tmp_path / "m.pt",
        time_limit=time_limit,
        patience=patience,
        **{**SHORT, "lr": 0.0},
    )
    assert (len(result.history), result.stopped_by) == (epochs_run, stopped_by)
    assert (result.stopped_at is not None) == (stopped_by is not None)


def test_cosine_to_the_cap_without_early_stopping(dataset, tmp_path):
    """The lexinvariant paper's schedule (cosine decay to a tenth of the peak,
    0.01 to 0.001) is the default schedule without ``patience``: every epoch
    runs and the last steps are at a tenth of the peak."""
    result = train(data=dataset, arch="vanilla", epochs=3, out=tmp_path / "m.pt", **QUICK)
    assert (len(result.history), result.stopped_by, result.schedule) == (3, None, "cosine")
    lrs = [h["lr"] for h in result.history]
    assert lrs[0] > lrs[1] > lrs[2] == pytest.approx(0.1 * QUICK["lr"], rel=0.05)


# ------------------------------------------------------ the run as one value
def _make_resume():
    """tests/nn/data/make_resume.py, which wrote the states of an earlier invar (its runs and their data)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_resume", ROOT / "tests" / "nn" / "data" / "make_resume.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["pooled", "encoder-decoder", "causal-lm"])
def test_a_state_saved_by_the_previous_invar_resumes_exactly(kind, tmp_path):
    """A training state cut mid-epoch by the invar before TrainConfig and
    the model kinds' wrappers (tests/nn/data/resume-KIND.pt) resumes: the
    run ends with the weights and history of an uninterrupted run of today's
    invar, so today's steps are the earlier invar's. To float32 rounding,
    not bit for bit: the file holds weights and a loss sum as the CPU that
    made it computed them, and another CPU's vector instructions round the
    same steps differently (a state resumed on the CPU that saved it
    continues bit for bit: the tests above)."""
    import shutil

    make = _make_resume()
    settings = dict(make.RUNS[kind], data=make.dataset(kind, tmp_path), threads=1, save_every=make.SAVE_EVERY)
    whole = train(out=tmp_path / "whole.pt", **settings)
    shutil.copy(ROOT / "tests" / "nn" / "data" / f"resume-{kind}.pt", resume_path(tmp_path / "cut.pt"))
    cut = train(out=tmp_path / "cut.pt", resume=True, **settings)
    assert cut.resumed_from == (0, make.SAVE_EVERY)
    a, b = _weights(tmp_path / "whole.pt"), _weights(tmp_path / "cut.pt")
    # the rounding of a few steps, well below one step of Adam (about the learning rate, 3e-3, a weight)
    assert all(torch.allclose(a[k], b[k], rtol=1e-3, atol=1e-4) for k in a)
    for got, want in zip(_without_seconds(cut.history), _without_seconds(whole.history), strict=True):
        assert got == pytest.approx(want, rel=1e-5)


def test_a_config_trains_as_its_settings_do_and_the_checkpoint_stores_it(dataset, tmp_path):
    from invar.config import TrainConfig

    config = TrainConfig(data=dataset, arch="renamer", out=tmp_path / "a.pt", epochs=1, heads=4, **SHORT)
    result = train(config)
    train(data=dataset, arch="renamer", out=tmp_path / "b.pt", epochs=1, heads=4, **SHORT)
    a, b = _weights(tmp_path / "a.pt"), _weights(tmp_path / "b.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    stored = checkpoint.load(tmp_path / "a.pt")["train"]
    assert stored == config.replace(max_len=128).as_dict() and TrainConfig(**stored).heads == 4
    assert invar.load_model(tmp_path / "a.pt").config.n_head == 4 and result.out == str(tmp_path / "a.pt")
    assert checkpoint.load(resume_path(tmp_path / "a.pt"), kind="resume")["train"] == stored


def test_the_loop_never_asks_which_kind_of_model_it_trains():
    """The kinds (pooled encoder, encoder-decoder, causal language model)
    say how they read, fit, lose and validate (invar/nn/model.py); the loop
    reads no head and no kind's name."""
    import ast

    source = (ROOT / "invar" / "train.py").read_text()
    asked = [
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare)
        and any(
            isinstance(part, ast.Attribute)
            and part.attr in ("head", "generates")
            or isinstance(part, ast.Constant)
            and part.value in ("lm", "generate", "regression")
            for part in (node.left, *node.comparators)
        )
    ]
    assert asked == []
    assert "generates" not in source and "computes_loss" not in source


@pytest.mark.parametrize("arch", architectures())
def test_every_architecture_resumes_exactly_after_an_epoch(arch, dataset, tmp_path):
    """Interrupted after epoch 1 and resumed, every architecture ends with
    the weights and history of the run that never stopped: whatever an
    architecture draws while training (augmented's renamings, random
    vectors, dropout) is part of the state that resumes (the sequence
    models: tests/tasks/test_copy_task.py)."""
    same = dict(data=dataset, arch=arch, epochs=2, seed=3, **SHORT)
    whole = train(out=tmp_path / "whole.pt", **same)
    cut = _cut_and_resumed(1, tmp_path / "cut.pt", **same)
    assert cut.resumed_from == (1, 0)
    a, b = _weights(tmp_path / "whole.pt"), _weights(tmp_path / "cut.pt")
    assert [k for k in a if not torch.equal(a[k], b[k])] == []
    assert _without_seconds(cut.history) == _without_seconds(whole.history)


@pytest.mark.parametrize(
    "fields, shown, place",
    [  # a model config's refusal, spelt with the options that set its fields and placed at the first
        ({"head": "lm", "positions": "rotary", "n_head": 4, "d_model": 12}, "--heads=4 leaves heads 3 wide", "--heads"),
        ({"n_head": 3}, "d_model=128 is not divisible by --heads=3", "--heads"),
    ],
)
def test_a_model_config_refusal_is_placed_at_the_option_it_names(fields, shown, place):
    from invar.nn.config import preset
    from invar.train import _at_option

    with pytest.raises(ValueError) as err:
        preset("vanilla", "tiny", **fields)
    message, path = _at_option(str(err.value))
    assert message.startswith(shown) and path == place, (message, path)
