"""Local transformers models (``--model hf:DIR``): tiny models with random
weights, saved by the test with a tokenizer built here (nothing is
downloaded), answer as transformers itself answers when called directly,
one input at a time; a directory that holds code is refused.

The builders (:func:`save_causal` and the others) are also used by
tests/audit/test_real_server.py and bench/bench_hf.py."""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path

import pytest

import invar
from invar.audit import audit
from invar.audit.adapter import Failure, Reply
from invar.audit.hf import is_classifier, model_kind, refuse_code
from invar.audit.models import open_model
from invar.errors import ModelError, UsageError
from invar.tasks import answers

#: the vocabulary of the test tokenizer: words the prompts and programs use, and labels
WORDS = (
    "[PAD] [UNK] [BOS] [EOS] Answer : sorting search other 0 1 correct buggy def return if else for in while "
    "x y n i total count result value item xs ( ) [ ] = + - * < > , . and or not True False None"
).split()
#: a chat template as small as can be: the messages' text, then the answer's marker
CHAT = "{% for m in messages %}{{ m['content'] }} {% endfor %}{% if add_generation_prompt %}Answer :{% endif %}"
#: the tokens that end a generation: the end token, and two words a random model writes often (so
#: that some answers end before the token limit, as a trained model's do)
ENDS = ("[EOS]", "for", "=")


def tokenizer(chat: bool = True):
    """A word-level tokenizer over :data:`WORDS`, built here (no download)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece(prefix="##")  # words joined by spaces
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", bos_token="[BOS]", eos_token="[EOS]"
    )
    if chat:
        fast.chat_template = CHAT
    return fast


def _ends() -> list[int]:
    return [WORDS.index(w) for w in ENDS]


def save_causal(
    where: Path, seed: int = 0, *, chat: bool = True, positions: int = 512, width: int = 32, layers: int = 2
) -> Path:
    """A GPT-2 of random weights (``initializer_range`` 0.3: varied outputs), saved with its tokenizer."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(WORDS),
        n_positions=positions,
        n_embd=width,
        n_layer=layers,
        n_head=2,
        bos_token_id=2,
        eos_token_id=_ends(),
        pad_token_id=0,
        initializer_range=0.3,
    )
    model = GPT2LMHeadModel(config)
    model.generation_config.eos_token_id = _ends()
    model.save_pretrained(where)
    tokenizer(chat).save_pretrained(where)
    return where


def save_seq2seq(where: Path, seed: int = 1) -> Path:
    """A T5 of random weights, saved with its tokenizer."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(seed)
    config = T5Config(
        vocab_size=len(WORDS),
        d_model=32,
        d_kv=16,
        d_ff=64,
        num_layers=2,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=_ends(),
        initializer_factor=8.0,
    )
    model = T5ForConditionalGeneration(config)
    model.generation_config.eos_token_id = _ends()
    model.save_pretrained(where)
    tokenizer(chat=False).save_pretrained(where)
    return where


def save_classifier(where: Path, labels: tuple[str, ...], seed: int = 0) -> Path:
    """A BERT sequence classifier of random weights over ``labels``, saved with its tokenizer."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(WORDS),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={n: i for i, n in enumerate(labels)},
        initializer_range=0.5,
    )
    BertForSequenceClassification(config).save_pretrained(where)
    tokenizer(chat=False).save_pretrained(where)
    return where


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf")
    return {
        "causal": save_causal(root / "causal"),
        "plain": save_causal(root / "plain", 1, chat=False),
        "seq2seq": save_seq2seq(root / "seq2seq"),
        "classifier": save_classifier(root / "classifier", ("sorting", "search", "other")),
        "bugs": save_classifier(root / "bugs", ("correct", "buggy"), seed=2),
        "defaults": save_classifier(root / "defaults", ("LABEL_0", "LABEL_1"), seed=3),
    }


#: programs as an audit renders them (whole Python functions), varied enough for the models to differ on
PROGRAMS = [
    "def f(xs):\n    total = 0\n    for x in xs:\n        total = total + x\n    return total",
    "def g(n):\n    return n * 2",
    "def h(x, y):\n    if x < y:\n        return y\n    return x",
    "def k(xs):\n    count = 0\n    for item in xs:\n        if item:\n            count = count + 1\n    return count",
    "def m(value):\n    result = [value, value]\n    return result",
    "def p(n):\n    i = 0\n    while i < n:\n        i = i + 1\n    return i",
    "def q(x):\n    return not x",
    "def r(xs, n):\n    return xs[n] + xs[n - 1]",
]
PROMPT = "{program}"


# ------------------------------------------------------------- transformers directly
def generated(
    directory: Path, kind: str, texts: list[str], *, prompt: str = PROMPT, max_tokens: int = 6
) -> list[tuple[str, bool, int]]:
    """What a language model writes for each text, called directly with
    transformers, one input at a time (no batch, no padding), greedily: the
    text, whether it stopped at an end token, and how many tokens it wrote."""
    import torch
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(directory)
    auto = transformers.AutoModelForCausalLM if kind == "causal" else transformers.AutoModelForSeq2SeqLM
    model = auto.from_pretrained(directory).eval()
    out = []
    for text in texts:
        filled = prompt.replace("{program}", text)
        if kind == "causal" and tok.chat_template:
            ids = tok.apply_chat_template(
                [{"role": "user", "content": filled}], add_generation_prompt=True, return_tensors="pt", return_dict=True
            )
        else:
            ids = tok(filled, return_tensors="pt")
        with torch.no_grad():
            made = model.generate(**ids, do_sample=False, max_new_tokens=max_tokens)
        new = (made[0, ids["input_ids"].shape[1] :] if kind == "causal" else made[0, 1:]).tolist()
        out.append((tok.decode(new, skip_special_tokens=True), any(t in _ends() for t in new), len(new)))
    return out


def read_all(
    made: list[tuple[str, bool, int]],
    *,
    task: str = "classify",
    max_tokens: int = 6,
    truncated=lambda ended, n, limit: not ended and n >= limit,
) -> list:
    """Generated texts read by the task's reader as the audit reads them: a
    value, or a :class:`Failure` with the reader's message for a reply it
    refuses. ``truncated(ended, tokens, max_tokens)`` says whether the
    reply was cut at the token limit."""
    out = []
    for text, ended, n in made:
        try:
            out.append(answers.read(task, text, truncated=truncated(ended, n, max_tokens)).value)
        except ValueError as err:
            out.append(Failure(str(err)))
    return out


def direct(
    directory: Path, kind: str, texts: list[str], *, task: str = "classify", prompt: str = PROMPT, max_tokens: int = 6
) -> list:
    """What transformers answers for each text, called directly, as the
    audit reads it (:func:`generated`, :func:`read_all`; a classifier: its
    label, ``LABEL_k`` as ``k``)."""
    if kind != "classifier":
        return read_all(
            generated(directory, kind, texts, prompt=prompt, max_tokens=max_tokens), task=task, max_tokens=max_tokens
        )
    import torch
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(directory)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(directory).eval()
    with torch.no_grad():
        names = [model.config.id2label[model(**tok(t, return_tensors="pt")).logits.argmax(-1).item()] for t in texts]
    return [answers.read(task, n.removeprefix("LABEL_")).value for n in names]


def _outcomes(got: list) -> list:
    return [o.value if isinstance(o, Reply) else o for o in got]


#: :func:`direct` on :data:`PROGRAMS` per model, computed once for the tests that each compare with it
_DIRECT: dict[tuple[Path, str], list] = {}


def _direct_on_programs(directory: Path, kind: str) -> list:
    if (directory, kind) not in _DIRECT:
        _DIRECT[directory, kind] = direct(directory, kind, PROGRAMS)
    return _DIRECT[directory, kind]


@pytest.mark.parametrize(
    "name, kind, batch_size",
    [
        ("causal", "causal", 3),
        ("causal", "causal", 1),
        ("plain", "causal", 8),
        ("seq2seq", "seq2seq", 3),
        ("classifier", "classifier", 3),
    ],
)
def test_answers_are_transformers_own_called_directly(models, name, kind, batch_size):
    adapter = open_model(
        f"hf:{models[name]}", task="classify", prompt=None if kind == "classifier" else PROMPT, max_tokens=6
    )
    got = _outcomes(adapter.predict(PROGRAMS, batch_size=batch_size))
    assert got == _direct_on_programs(models[name], kind)
    if kind != "classifier":  # the models were built so that some answers end early and others run to the limit
        assert 0 < sum(isinstance(o, Failure) and "cut off" in o.message for o in got) < len(PROGRAMS)
        assert len(set(map(str, got))) > 2  # not one answer for everything: the models read their input


def test_a_classifier_for_bugs_answers_with_the_tasks_labels(models):
    # id2label names read by the task's reader: correct -> 0, buggy -> 1; LABEL_k -> k
    for name in ("bugs", "defaults"):
        got = _outcomes(open_model(f"hf:{models[name]}", task="bugs").predict(PROGRAMS, batch_size=4))
        assert set(got) <= {0, 1}
        assert got == direct(models[name], "classifier", PROGRAMS, task="bugs")


def test_an_audit_of_an_hf_model_predicts_what_transformers_predicts_on_every_variant(models):
    data = [(p, "sorting") for p in PROGRAMS]
    settings = dict(
        task="classify", lang="python", prompt=PROMPT, max_tokens=6, variants=3, batch_size=4, seed=5, controls=0
    )
    sent: list[str] = []

    def recorder(texts):  # the same audit asked of a callable: the texts the model reads, in order
        sent.extend(texts)
        return ["sorting"] * len(texts)

    recorded = audit(recorder, data, **settings).records
    result = audit(f"hf:{models['causal']}", data, **settings)
    assert result.report["model"]["kind"] == "checkpoint" and result.report["model"]["arch"] == "GPT2LMHeadModel"
    expected = direct(models["causal"], "causal", sent)
    at = 0
    for rec, asked in zip(result.records, recorded, strict=True):
        mine = expected[at : at + 1 + asked["variants"]]
        at += 1 + asked["variants"]
        if rec["error"] is not None:  # some input of the example got no answer from transformers either
            assert any(e.message in rec["error"] for e in mine if isinstance(e, Failure)), (rec["error"], mine)
            continue
        assert rec["prediction"] == mine[0]
        assert Counter(dict(rec["metric"]["variant_predictions"])) == Counter(mine[1:])
    assert at == len(sent) and result.report["audited"] >= 2, [r["error"] for r in result.records]


def test_nothing_is_downloaded(models, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("hf: opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    adapter = open_model(f"hf:{models['seq2seq']}", task="classify", prompt=PROMPT, max_tokens=3)
    assert len(adapter.predict(PROGRAMS[:2], batch_size=2)) == 2


@pytest.mark.parametrize(
    "plant, says",
    [
        ({"modeling_custom.py": "import os\n"}, "holds code (modeling_custom.py)"),
        ({"sub/tokenizer_helper.py": ""}, "holds code (sub/tokenizer_helper.py)"),
        ({"config.json": {"auto_map": {"AutoModel": "modeling_custom.Model"}}}, "asks for code to run (auto_map)"),
        ({"tokenizer_config.json": {"trust_remote_code": True}}, "asks for code to run (trust_remote_code)"),
        ({"config.json": {"nested": [{"auto_map": {}}]}}, "asks for code to run (auto_map)"),
    ],
)
def test_a_model_directory_with_code_in_it_is_refused(models, tmp_path, plant, says):
    import shutil

    where = tmp_path / "model"
    shutil.copytree(models["classifier"], where)
    for name, content in plant.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            old = json.loads(path.read_text()) if path.exists() else {}
            path.write_text(json.dumps({**old, **content}))
        else:
            path.write_text(content)
    with pytest.raises(ModelError, match="invar loads no model that runs code") as err:
        open_model(f"hf:{where}", task="classify")
    assert says in err.value.message


def test_a_clean_directory_passes_the_code_check(models):
    refuse_code(models["causal"])  # no error


@pytest.mark.parametrize(
    "config, kind",
    [
        ({"architectures": ["BertForSequenceClassification"]}, "classifier"),
        ({"architectures": ["T5ForConditionalGeneration"], "is_encoder_decoder": True}, "seq2seq"),
        ({"architectures": ["BartForConditionalGeneration"]}, "seq2seq"),
        ({"architectures": ["LlamaForCausalLM"]}, "causal"),
        ({}, "causal"),
    ],
)
def test_what_a_model_is_comes_from_its_config(config, kind):
    assert model_kind(config) == kind


@pytest.mark.parametrize(
    "spec, task, error, says",
    [
        ("hf:{missing}", "classify", ModelError, "no such model directory"),
        ("hf:{empty}", "classify", ModelError, "no config.json"),
        ("hf:{classifier}", "names", UsageError, "a sequence classifier answers classify or bugs"),
        ("hf:{causal}", None, UsageError, "needs --task"),
        ("hf:{causal}", "ltl", UsageError, "has no shipped prompt"),
    ],
)
def test_bad_models_and_tasks_are_refused_with_a_message(models, tmp_path, spec, task, error, says):
    (tmp_path / "empty").mkdir()
    paths = {"missing": tmp_path / "missing", "empty": tmp_path / "empty", **models}
    with pytest.raises(error, match=says):
        open_model(spec.format(**paths), task=task)


def test_a_program_longer_than_the_models_positions_is_that_inputs_error(tmp_path):
    where = save_causal(tmp_path / "short", positions=40)
    adapter = open_model(f"hf:{where}", task="classify", prompt=PROMPT, max_tokens=6)
    long = "def f(x):\n" + "    x = x + 1\n" * 10 + "    return x"
    got = adapter.predict([PROGRAMS[1], long], batch_size=2)
    assert not isinstance(got[0], Failure) or "positions" not in got[0].message
    assert isinstance(got[1], Failure) and "this model takes 40 positions" in got[1].message


def test_the_command_line_audits_an_hf_model(invoke, models, tmp_path):
    data = tmp_path / "programs.jsonl"
    data.write_text("".join(json.dumps({"program": p, "label": "sorting"}) + "\n" for p in PROGRAMS[:4]))
    report = invoke.json(
        "audit",
        "--model",
        f"hf:{models['classifier']}",
        "--dataset",
        data,
        "--task",
        "classify",
        "--lang",
        "python",
        "--variants",
        "2",
        "--format",
        "json",
    )
    assert report["model"]["path"] == f"hf:{models['classifier']}" and report["audited"] == 4
    assert (
        report["metric"]["original"]
        == 100.0
        * direct(models["classifier"], "classifier", [invar.parse(p, "python").render() for p in PROGRAMS[:4]]).count(
            "sorting"
        )
        / 4
    )


def test_a_prompt_for_a_sequence_classifier_is_a_usage_error(invoke, models, tmp_path):
    """It reads the program as it is: a prompt given would be dropped without a word."""
    says = "a sequence classifier reads the program as it is and takes no prompt"
    (tmp_path / "prompt.txt").write_text("Classify this function.\n{program}\n")
    data = tmp_path / "programs.jsonl"
    data.write_text("".join(json.dumps({"program": p, "label": "sorting"}) + "\n" for p in PROGRAMS[:2]))
    model = f"hf:{models['classifier']}"
    options = ["--task", "classify", "--lang", "python", "--prompt", tmp_path / "prompt.txt"]
    result = invoke("audit", "--model", model, "--dataset", data, *options)
    assert result.exit_code == 2, result.output
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        f"--prompt: error: {says}: leave --prompt out, or audit a language model"
    ]
    with pytest.raises(UsageError, match=says) as err:
        audit(model, PROGRAMS[:2], task="classify", lang="python", prompt="Classify:\n{program}\n")
    assert err.value.path == "--prompt"


@pytest.mark.parametrize("flag, value", [("--max-tokens", "5"), ("--answer-regex", "Answer: (\\w+)")])
def test_a_text_setting_for_a_sequence_classifier_is_a_usage_error(invoke, models, tmp_path, flag, value):
    """It answers with its label and writes no text: a limit on what it writes, or a pattern to read its
    answer from, would be dropped without a word; a language model of the same kind of directory takes them."""
    data = tmp_path / "programs.jsonl"
    data.write_text("".join(json.dumps({"program": p, "label": "sorting"}) + "\n" for p in PROGRAMS[:2]))
    options = ["--dataset", data, "--task", "classify", "--lang", "python", flag, value]
    result = invoke("audit", "--model", f"hf:{models['classifier']}", *options)
    assert result.exit_code == 2, result.output
    assert [line for line in result.stderr.splitlines() if "error" in line] == [
        f"{flag}: error: {flag} is for models that answer in text (HTTP, an hf: language model)"
    ]
    field = flag[2:].replace("-", "_")
    with pytest.raises(UsageError, match=f"{flag} is for models that answer in text") as err:
        audit(
            f"hf:{models['classifier']}",
            PROGRAMS[:2],
            task="classify",
            lang="python",
            **{field: 5 if field == "max_tokens" else "x"},
        )
    assert err.value.path == flag
    assert is_classifier(f"hf:{models['classifier']}") and not is_classifier(f"hf:{models['causal']}")
    assert not is_classifier(f"hf:{tmp_path / 'none'}")


def test_without_transformers_the_message_says_how_to_install_it(models, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "transformers", None)  # as if it were not installed
    with pytest.raises(ModelError, match=r"pip install 'invar\[hf\]'"):
        open_model(f"hf:{models['classifier']}", task="classify")


def test_loading_a_model_prints_nothing_of_transformers_own(models, capfd):
    """Its notes on a config and its bar of weights loaded went to stderr between invar's lines, -q or not."""
    from invar.audit import hf

    for kind in ("classifier", "causal"):
        hf._load(models[kind], kind, "cpu")
    out, err = capfd.readouterr()
    assert out == "" and err == "", err
