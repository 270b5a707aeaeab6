"""``invar train``: a summary on success; a located one-line error, exit 1,
no traceback, on bad input."""

from __future__ import annotations

import json

import pytest
import torch

from invar import load_model
from invar.data import bhive
from invar.frontends.x86.hexblock import decode
from invar.nn.embeddings import PinnedViewEmbedding
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("bhive")
    bhive.build([str(FIXTURES / "x86" / "blocks.csv")], out, jobs=1)
    return out


def _train(invoke, data, out, *options):
    """``invar train`` of ``data`` on one thread, written to ``out``."""
    return invoke("train", "--data", data, *options, "--threads", "1", "--out", out)


def test_train_writes_a_checkpoint_and_reports(invoke, dataset, tmp_path):
    out = tmp_path / "m.pt"
    result = _train(invoke, dataset, out, "--arch", "renamer", "--epochs", "2", "--batch-size", "8")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"wrote {out}: renamer tiny on bhive, 37 training programs, best validation MAPE ")
    assert "epoch 1/2: train loss" in result.stderr and "(best, saved)" in result.stderr
    result = _train(invoke, dataset, out, "--arch", "spe", "--epochs", "1", "--limit", "8", "--format", "json")
    summary = json.loads(result.stdout)
    assert (summary["schema"], summary["arch"], summary["train"], summary["valid"]) == (1, "spe", 8, 1)


def test_resume_without_a_saved_state_says_it_starts_from_the_beginning(invoke, dataset, tmp_path):
    out = tmp_path / "m.pt"
    result = _train(invoke, dataset, out, "--arch", "vanilla", "--epochs", "1", "--limit", "8", "--resume")
    assert result.exit_code == 0, result.output
    assert f"note: --resume: no saved state at {tmp_path / 'm.resume.pt'}; training from the start" in result.stderr
    again = _train(invoke, dataset, out, "--arch", "vanilla", "--epochs", "1", "--limit", "8")
    assert again.exit_code == 0 and "note: --resume" not in again.stderr


def test_pinned_tokens_trains_a_renamer_that_reads_pinned_registers(invoke, dataset, tmp_path):
    out = tmp_path / "pinned.pt"
    options = ("--arch", "renamer", "--pinned-tokens", "token", "--epochs", "1", "--batch-size", "8")
    result = _train(invoke, dataset, out, *options)
    assert result.exit_code == 0, result.output
    model = load_model(out)
    assert model.config.pinned_tokens == "token" and isinstance(model.network.encoder.embed, PinnedViewEmbedding)
    programs = [decode(ex.source) for ex in bhive.read_split(dataset, "train")]
    assert any(model.encode(p).pinned.any() for p in programs)  # the fixture has pinned registers to read
    line = _error(
        invoke("train", "--data", dataset, "--arch", "vanilla", "--pinned-tokens", "token", "--out", tmp_path / "v.pt"),
        status=2,  # options that make no model: a usage error
    )
    assert line == "--pinned-tokens: error: --pinned-tokens applies to embedding='view', not 'learned'"


def _error(result, status: int = 1) -> str:
    assert result.exit_code == status, result.output
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and result.stderr.strip().endswith(errors[0]), result.stderr
    return errors[0]


def test_unknown_architecture(invoke, dataset, tmp_path):
    line = _error(invoke("train", "--data", dataset, "--arch", "bert", "--out", tmp_path / "m.pt"), status=2)
    assert line.startswith("--arch: error: unknown architecture 'bert': choose from vanilla, augmented")


def test_missing_dataset(invoke, tmp_path):
    line = _error(invoke("train", "--data", tmp_path / "nowhere", "--arch", "renamer", "--out", tmp_path / "m.pt"))
    assert line == (
        f"{tmp_path / 'nowhere'}: error: no such dataset directory (label blocks with: invar data bhive --out DIR)"
    )


@pytest.mark.parametrize(
    "train_csv, expected",
    [
        ("hex,throughput\n", "train.csv: error: the train split is empty"),
        ("hex,throughput\n4801c3\n", "train.csv:2:1: error: unlabelled block (expected hex,throughput)"),
        (
            "hex,throughput\n4801c3,1.0\nzz,2.0\n",
            "train.csv:3:1: error: cannot read the stored program: not a hex string: 'z' is not a hex digit",
        ),
    ],
)
def test_empty_or_unlabelled_dataset(invoke, tmp_path, train_csv, expected):
    (tmp_path / "train.csv").write_text(train_csv)
    (tmp_path / "valid.csv").write_text("hex,throughput\n4801c3,1.0\n")
    line = _error(invoke("train", "--data", tmp_path, "--arch", "vanilla", "--out", tmp_path / "m.pt"))
    assert line.endswith(expected), line


def test_corrupt_or_foreign_training_state(invoke, dataset, tmp_path):
    out = tmp_path / "m.pt"
    state = tmp_path / "m.resume.pt"
    state.write_bytes(b"\x00garbage")
    line = _error(_train(invoke, dataset, out, "--arch", "vanilla", "--resume"))
    assert line.startswith(f"{state}: error: not a readable checkpoint")
    _train(invoke, dataset, out, "--arch", "vanilla", "--epochs", "1")
    line = _error(_train(invoke, dataset, out, "--arch", "renamer", "--epochs", "2", "--resume"))
    assert line.startswith(f"{state}: error: the saved training state is for other settings")
    saved = torch.load(state, weights_only=True)
    torch.save({**saved, "kind": "model"}, state)
    line = _error(_train(invoke, dataset, out, "--arch", "vanilla", "--epochs", "2", "--resume"))
    assert line == f"{state}: error: a model file, not a resume checkpoint"


def test_usage_errors_exit_2(invoke, dataset, tmp_path):
    result = invoke("train", "--data", dataset, "--arch", "renamer", "--out", tmp_path / "m.pt", "--size", "huge")
    assert result.exit_code == 2
    result = _train(invoke, dataset, tmp_path / "m.pt", "--arch", "renamer", "--device", "cuda")
    if not torch.cuda.is_available():
        assert result.exit_code == 2 and "no CUDA device" in result.stderr


# ------------------------------------------------ every option declared once
#: the options a command adds beside its config's (what the run is of, and what is done with its result)
OWN = {
    ("invar", "train"): {"--format"},
    ("invar", "audit"): {
        "--model",
        "--dataset",
        "--format",
        "--out",
        "--fail-over",
        "--fail-under",
        "--plot",
        "--report",
        "--quiet",
    },
}


def _configs():
    from invar.audit.config import AuditConfig
    from invar.config import TrainConfig

    return {("invar", "train"): TrainConfig, ("invar", "audit"): AuditConfig}


@pytest.mark.parametrize("path", sorted(OWN))
def test_a_commands_options_are_its_configs_fields_and_its_own(path):
    """Each field of the config is one option of the command, with the
    field's flags, help, default and choices (the library's registries);
    the command adds only its own options."""
    from dataclasses import MISSING

    from invar.cli.reference import _choices, walk
    from invar.config import choices_of, option_fields

    (command,) = [c for c in walk() if c.path == path]
    options = {p.opts[0]: p for p in command.params if getattr(p, "param_type_name", "") == "option"}
    config = _configs()[path]
    declared = {f.metadata["flags"][0].split("/")[0]: f for f in option_fields(config)}
    assert set(options) == set(declared) | OWN[path]
    for flag, f in declared.items():
        p = options[flag]
        assert tuple(p.opts + p.secondary_opts) == tuple(n for spec in f.metadata["flags"] for n in spec.split("/"))
        assert p.help == f.metadata["help"]
        assert p.required == (f.default is MISSING)
        assert f.default is MISSING or p.default == f.default, flag
        assert _choices(p) == choices_of(f, config), flag


def test_the_train_command_offers_the_registries_choices():
    from invar.cli.reference import walk
    from invar.config import TRAINABLE_TASKS
    from invar.nn.config import POSITIONS, SIZES

    (command,) = [c for c in walk() if c.path == ("invar", "train")]
    assert command.choices["--task"] == TRAINABLE_TASKS and "classify" not in TRAINABLE_TASKS
    assert command.choices["--size"] == tuple(SIZES) and command.choices["--positions"] == POSITIONS
    assert "--arch" not in command.choices  # the library names the architectures in its error (exit 1, above)


def test_the_options_table_of_docs_models_is_generated_from_the_config():
    from invar.cli.reference import config_table, table_marks, with_table
    from invar.config import TrainConfig
    from tests.conftest import ROOT

    page = (ROOT / "docs" / "models.md").read_text()
    table = config_table(TrainConfig)
    assert with_table(page, "TrainConfig", table) == page, "docs/models.md is stale: run python tools/regenerate.py"
    begin, end = table_marks("TrainConfig")
    assert f"{begin}\n{table}{end}" in page
    assert "| `--heads` | `heads` |  | Attention heads" in table and "Sets the model's `n_head`." in table
    stale = page.replace("Programs per step.", "Programs in a step.")
    assert with_table(stale, "TrainConfig", table) == page != stale  # regenerating restores it
    with pytest.raises(ValueError, match="needs one"):
        with_table(page.replace(end, ""), "TrainConfig", table)


# ------------------------------------------------------------- the config
def _config(**changes):
    from invar.config import TrainConfig

    return TrainConfig(**{"data": "d", "arch": "vanilla", "out": "m.pt", **changes})


@pytest.mark.parametrize(
    "changes, path, message",
    [
        ({"epochs": 0}, None, "--epochs and --batch-size must be at least 1"),
        ({"batch_size": 0}, None, "--epochs and --batch-size must be at least 1"),
        ({"patience": 0}, "--patience", "--patience 0: give at least 1 epoch, or leave it out to train every epoch"),
        ({"schedule": "step"}, "--schedule", "--schedule step: choose from cosine, plateau"),
        ({"plateau": 0}, "--plateau", "--plateau 0: give at least 1 epoch"),
        ({"plateau": 3}, "--plateau", "--plateau 3 applies to --schedule plateau, not cosine"),  # it was ignored
        ({"plateau": 5}, "--plateau", "--plateau 5 applies to --schedule plateau, not cosine"),  # the default too
        (
            {"schedule": "plateau", "plateau": 2, "patience": 2},
            "--patience",
            "--patience 2 with --plateau 2: the run "
            "would stop before the learning rate ever halved; give a patience above the plateau",
        ),
        (
            {"schedule": "plateau", "patience": 5},
            "--patience",
            "--patience 5 with --plateau 5: the run would stop before "
            "the learning rate ever halved; give a patience above the plateau",
        ),
        ({"time_limit": -1.0}, "--time-limit", "--time-limit -1.0: give a number of seconds, at least 0"),
        ({"precision": "fp16"}, "--precision", "--precision fp16: choose from fp32, tf32, bf16"),
        ({"lr": -1e-3}, "--lr", "-0.001 is below the least allowed, 0"),
        ({"beta2": 1.5}, "--beta2", "1.5: give a number below 1"),
        ({"beta1": 1.0}, "--beta1", "1: give a number below 1"),  # AdamW refuses a beta of 1
        ({"lexinvariant_p": 2.0}, "--lexinvariant-p", "2 is above the most allowed, 1"),
        ({"jobs": 0}, "--jobs", "0 is below the least allowed, 1"),
        ({"lr": float("inf")}, "--lr", "inf: give a finite number"),
    ],
)
def test_a_bad_setting_is_refused_when_the_config_is_made(changes, path, message):
    from invar.errors import UsageError

    with pytest.raises(UsageError) as err:
        _config(**changes)
    assert (err.value.message, err.value.path) == (message, path)


def test_registry_choices_are_left_to_the_registry_that_reads_them():
    """A size, a task or a model option outside its registry is refused
    where the registry reads it, with its own message; a torch device the
    command line does not offer is taken from Python."""
    assert _config(size="huge", task="nosuch", pinned_tokens="x", device="cuda:1").device == "cuda:1"


def test_settings_make_or_change_a_config():
    from invar.config import TrainConfig
    from invar.errors import UsageError

    config = TrainConfig.of(data=FIXTURES, arch="renamer", out=FIXTURES / "m.pt", betas=(0.9, 0.95))
    assert (config.data, config.out, config.betas) == (str(FIXTURES), str(FIXTURES / "m.pt"), (0.9, 0.95))
    assert TrainConfig.of(config, epochs=3) == config.replace(epochs=3) != config
    assert TrainConfig.of(config) is config
    assert TrainConfig(**config.as_dict()) == config  # what a checkpoint stores makes the config again
    stored = {**config.as_dict(), "plateau": 5}  # a config stored when --plateau's default was 5, under cosine
    assert TrainConfig.stored(stored) == config and TrainConfig.stored(config.as_dict()) == config
    with pytest.raises(UsageError, match="--plateau 5 applies to --schedule plateau, not cosine"):
        TrainConfig(**stored)  # given, it is refused like any other plateau
    with pytest.raises(UsageError, match="no training setting 'epoch' "):
        TrainConfig.of(config, epoch=3)


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({}, {}),  # every model option at its default: the preset's values stay
        ({"pinned_tokens": "view", "random_draws": 1, "norm_position": "pre"}, {}),
        ({"heads": 8, "positions": "absolute"}, {"n_head": 8, "positions": "absolute"}),
        ({"lexinvariant_p": 0.0, "random_draw": "batch"}, {"lexinvariant_p": 0.0, "random_draw": "batch"}),
        ({"heads": 8, "overrides": {"n_head": 4, "d_model": 64}}, {"n_head": 4, "d_model": 64}),  # overrides last
    ],
)
def test_model_options_set_the_model_fields_they_name(changes, expected):
    assert _config(**changes).model_fields() == expected


def test_the_encoding_line_says_whether_the_data_are_cached(invoke, tmp_path):
    from invar.tasks import names

    names.build(FIXTURES / "python", tmp_path / "names")
    for task, data, said in (
        ("names", tmp_path / "names", "(8 programs, once; cached under the data directory)"),
        ("copy", FIXTURES / "copy", "(8 programs)"),
    ):
        options = ("--task", task, "--arch", "vanilla", "--epochs", "1", "--limit", "8")
        result = _train(invoke, data, tmp_path / f"{task}.pt", *options)
        assert result.exit_code == 0, result.output
        assert f"encoding train {said}" in result.stderr


def test_every_generated_options_table_is_fresh():
    """docs/models.md (TrainConfig) and docs/audit.md (AuditConfig) hold the tables their configs make."""
    from invar.cli.reference import config_table, config_tables, with_table
    from tests.conftest import ROOT

    assert set(config_tables()) == {"docs/models.md", "docs/audit.md"}
    for page_path, (name, cls) in config_tables().items():
        page = (ROOT / page_path).read_text()
        assert with_table(page, name, config_table(cls)) == page, (
            f"{page_path} is stale: run python tools/regenerate.py"
        )
