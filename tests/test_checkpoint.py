"""Checkpoints: written atomically, read without running anything in them."""

from __future__ import annotations

import os
import pickle
import zipfile

import pytest
import torch

import invar
from invar import checkpoint
from invar.encoding import Vocab
from invar.errors import ModelError
from invar.frontends.x86 import parse
from invar.nn.config import preset
from invar.nn.model import Model
from tests.conftest import FIXTURES

FIG1A = parse((FIXTURES / "x86" / "figure1a.s").read_text())


def _model(arch: str = "renamer") -> Model:
    vocab = Vocab.build([FIG1A])
    torch.manual_seed(0)
    return Model("bhive", preset(arch, "tiny").with_vocab(vocab), vocab)


def test_round_trip(tmp_path):
    model = _model("dualpart")
    checkpoint.save(tmp_path / "m.pt", checkpoint.model_payload(model, {"valid_MAPE": 12.5}))
    back = invar.load_model(tmp_path / "m.pt")
    assert back.task == "bhive" and back.config == model.config and back.metrics == {"valid_MAPE": 12.5}
    model.network.eval()
    assert back.predict([FIG1A], batch_size=1) == model.predict([FIG1A], batch_size=1)
    raw = torch.load(tmp_path / "m.pt", weights_only=True)
    assert (raw["format"], raw["version"], raw["kind"]) == ("invar-checkpoint", checkpoint.VERSION, "model")
    import json

    json.dumps({k: v for k, v in raw.items() if k != "state_dict"})  # everything but weights is JSON


class _Payload:
    """Unpickling this would run a shell command."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("container", ["torch", "pickle"])
def test_a_checkpoint_that_would_run_code_is_refused(tmp_path, container):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    payload = {"format": "invar-checkpoint", "version": checkpoint.VERSION, "state_dict": _Payload(str(marker))}
    if container == "torch":
        torch.save(payload, path)
    else:
        path.write_bytes(pickle.dumps(payload, protocol=2))
    with pytest.raises(ModelError, match=r"refused: .*GLOBAL posix\.system") as info:
        invar.load_model(path)
    assert info.value.path == str(path)
    assert not marker.exists(), "the checkpoint ran code"
    pickle.loads(pickle.dumps(_Payload(str(marker))))  # the test can fail: plain unpickling does run it
    assert marker.exists()


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda p: p.write_text("not a checkpoint\n"), "not a readable checkpoint"),
        (lambda p: p.write_bytes(b""), "not a readable checkpoint"),
        (lambda p: torch.save({"weights": torch.zeros(2)}, p), "not an invar checkpoint"),
        (lambda p: torch.save({"format": "invar-checkpoint", "version": 99}, p), "format version 99"),
        (
            lambda p: torch.save({"format": "invar-checkpoint", "version": checkpoint.VERSION, "kind": "resume"}, p),
            "a resume file, not a model checkpoint",
        ),
        (
            lambda p: torch.save(
                {
                    "format": "invar-checkpoint",
                    "version": checkpoint.VERSION,
                    "task": "bhive",
                    "config": {"n_layer": "two"},
                    "vocab": {},
                },
                p,
            ),
            "inconsistent checkpoint",
        ),
    ],
)
def test_bad_files_are_located_model_errors(tmp_path, write, message):
    path = tmp_path / "bad.pt"
    write(path)
    with pytest.raises(ModelError, match=message) as info:
        invar.load_model(path)
    assert str(info.value).startswith(f"{path}: error: ")


def test_truncated_checkpoint(tmp_path):
    path = tmp_path / "m.pt"
    checkpoint.save(path, checkpoint.model_payload(_model()))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="not a readable checkpoint"):
        invar.load_model(path)


def test_checkpoint_of_another_task(tmp_path):
    path = tmp_path / "m.pt"
    payload = checkpoint.model_payload(_model())
    checkpoint.save(path, payload)
    with pytest.raises(ModelError, match="checkpoint of the 'bhive' task, not 'names'"):
        invar.load_model(path, task="names")
    checkpoint.save(path, {**payload, "task": "no-such-task"})
    with pytest.raises(ModelError, match="unknown task 'no-such-task'"):
        invar.load_model(path)
    assert zipfile.is_zipfile(path)


def test_a_failed_write_leaves_the_old_checkpoint_whole(tmp_path, monkeypatch):
    path = tmp_path / "m.pt"
    checkpoint.save(path, checkpoint.model_payload(_model(), {"n": 1}))
    before = path.read_bytes()

    def dies_halfway(obj, f, *args, **kwargs):
        f.write(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        checkpoint.save(path, checkpoint.model_payload(_model(), {"n": 2}))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]
    assert invar.load_model(path).metrics == {"n": 1}


@pytest.mark.parametrize(
    "stored, read",
    [
        (["x86"], ("x86",)),
        (None, ("x86",)),  # written before checkpoints named their languages: the task's
        (["python", "java"], ("java", "python")),
    ],
)
def test_a_checkpoint_knows_the_languages_it_was_trained_on(tmp_path, stored, read):
    from invar.frontends.python import parse_units as parse_python

    path = tmp_path / "m.pt"
    payload = checkpoint.model_payload(_model())
    assert payload["languages"] == ["x86"]
    if stored is None:
        del payload["languages"]
    else:
        payload["languages"] = stored
    checkpoint.save(path, payload)
    model = invar.load_model(path)
    assert model.languages == read
    assert checkpoint.model_payload(model)["languages"] == list(read)
    function = parse_python("def f(a):\n    return a\n")[0]
    for program in (FIG1A, function):
        if program.lang in read:
            model.check_supported(program)
        else:
            with pytest.raises(ModelError, match="is in .*; this bhive model was trained on .* only"):
                model.check_supported(program, "the program")
            with pytest.raises(ModelError, match="trained on"):
                model.predict([program])


@pytest.mark.parametrize("languages", ["x86", [1, 2], {"x86": 1}])
def test_a_malformed_languages_field_is_an_inconsistent_checkpoint(tmp_path, languages):
    path = tmp_path / "m.pt"
    checkpoint.save(path, {**checkpoint.model_payload(_model()), "languages": languages})
    with pytest.raises(ModelError, match="inconsistent checkpoint") as info:
        invar.load_model(path)
    assert info.value.path == str(path)


def test_the_committed_fixtures_read_as_x86_models():
    for name in ("renamer", "vanilla"):
        assert invar.load_model(FIXTURES / "models" / f"{name}.pt").languages == ("x86",)


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("n_layer", 10**6, "n_layer 1000000, but its weights hold 2 layer"),
        ("d_model", 10**7, "d_model 10000000, but the largest dimension of its weights is 512"),
        ("d_ff", 10**6, "d_ff 1000000"),
        ("n_referents", 10**9, "n_referents 1000000000, but at most 65536"),
        ("max_len", 10**8, "max_len 100000000"),
        ("beam", -1, "beam -1"),
        ("n_head", "2", "n_head '2'"),
    ],
)
def test_a_config_larger_than_its_weights_is_refused_before_anything_is_built(
    tmp_path, monkeypatch, field, value, said
):
    built = []
    monkeypatch.setattr("invar.nn.model.build_network", lambda *a: built.append(a))
    path = tmp_path / "m.pt"
    payload = checkpoint.model_payload(_model())
    checkpoint.save(path, {**payload, "config": {**payload["config"], field: value}})
    with pytest.raises(ModelError, match=f"inconsistent checkpoint \\({said}") as info:
        invar.load_model(path)
    assert info.value.path == str(path) and not built


@pytest.mark.parametrize(
    "arch", ["vanilla", "augmented", "canonicalized", "renamer", "spe", "renamer+spe", "dualpart", "lexinvariant"]
)
def test_every_architecture_reads_back_within_its_sizes(tmp_path, arch):
    path = tmp_path / f"{arch}.pt"
    checkpoint.save(path, checkpoint.model_payload(_model(arch)))
    assert invar.load_model(path).config.arch == arch


@pytest.mark.parametrize(
    "labels, said", [({"x": 1}, "a bhive model has no named labels"), (["a", "b"], "a bhive model has no named labels")]
)
def test_labels_a_model_cannot_have_are_an_inconsistent_checkpoint(tmp_path, labels, said):
    path = tmp_path / "m.pt"
    checkpoint.save(path, {**checkpoint.model_payload(_model()), "labels": labels})
    with pytest.raises(ModelError, match=said) as info:
        invar.load_model(path)
    assert info.value.path == str(path)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")  # making the archive
def test_a_torchscript_archive_is_named_as_one_and_torch_says_nothing_more(tmp_path):
    import warnings

    script = tmp_path / "ts.pt"
    torch.jit.script(torch.nn.Linear(2, 2)).save(str(script))
    old = tmp_path / "old.pt"
    old.write_bytes(pickle.dumps({"format": "x"}, protocol=4))  # torch warns of the protocol
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with pytest.raises(ModelError, match="a TorchScript archive, not an invar checkpoint"):
            invar.load_model(script)
        with pytest.raises(ModelError, match="not"):
            invar.load_model(old)
    assert not said, [str(w.message) for w in said]
