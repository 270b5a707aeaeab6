"""Hugging Face ``transformers`` models from a local directory (``--model hf:DIR``).

A directory written by ``save_pretrained`` (its ``config.json``, weights and
tokenizer side by side) is loaded with ``local_files_only=True`` and
``trust_remote_code=False``: nothing is downloaded, and nothing in the
directory runs. A directory that holds code (``.py`` files, an ``auto_map``
in a configuration that points at them, or ``trust_remote_code`` asked for in
one) is refused before ``transformers`` reads it: such a model is a program,
and invar runs no program it was not asked to run (a user who trusts it can
write a callable, docs/audit.md).

What the model is decides how it answers (:func:`model_kind`, from
``config.json``):

* a **sequence classifier** (``…ForSequenceClassification``) answers with
  its label (``id2label`` of the arg-max), read by the task's reader so a
  ``bugs`` classifier's ``correct``/``buggy`` or ``0``/``1`` is the task's 0
  or 1; transformers' default names ``LABEL_k`` read as ``k``;
* a **causal LM** is given the task's prompt (through the tokenizer's chat
  template when it has one) and a **seq2seq LM** the prompt as it is; each
  writes greedily at most ``max_tokens`` tokens, and its text is read by the
  task's reader as an endpoint's reply is (:func:`invar.tasks.answers.read`).

Inputs are batched (``--batch-size``), left-padded for a causal LM so that
every row's prompt ends where generation starts; an input longer than the
model's positions is that input's error, never silently cut. Greedy
decoding makes the model deterministic, so the adapter is a ``checkpoint``
to the audit: asked once however many repeats, and reported with the
transformers class (``arch``) and its number of parameters (``size``).

``transformers`` is an optional extra (``pip install 'invar[hf]'``),
imported only when an ``hf:`` model is opened.

Layer train/audit/alta: imports errors, tasks (the answer readers) and the
audit's adapter; never cli.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import ModelError, UsageError
from .adapter import Adapter, Failure, Reply, _describe

#: what ``--model`` starts with to name a local transformers model
PREFIX = "hf:"
#: how to install what ``hf:`` models need
INSTALL = "pip install 'invar[hf]' (in a clone of invar: pip install -e '.[hf]')"
#: the configuration files that may ask for code (``auto_map``, ``trust_remote_code``)
CONFIGS = (
    "config.json",
    "tokenizer_config.json",
    "generation_config.json",
    "processor_config.json",
    "preprocessor_config.json",
)
#: the tasks a sequence classifier answers (its output is one label)
CLASSIFIED = ("classify", "bugs")
_DEFAULT_LABEL = re.compile(r"^LABEL_(\d+)$")


def refuse_code(directory: Path) -> None:
    """ModelError when ``directory`` holds code: a ``.py`` file anywhere
    below it, or a configuration that names code to run (``auto_map``) or
    asks for it (``trust_remote_code``)."""
    found = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.py"))
    if found:
        raise ModelError(
            f"the model directory holds code ({', '.join(found[:3])}{' …' if len(found) > 3 else ''}): "
            "invar loads no model that runs code",
            path=str(directory),
        )
    for name in CONFIGS:
        path = directory / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as err:
            raise ModelError(f"{name} is not JSON ({_describe(err)})", path=str(path))
        asks = sorted(_code_keys(data))
        if asks:
            raise ModelError(
                f"{name} asks for code to run ({', '.join(asks)}): invar loads no model that runs code", path=str(path)
            )


def _code_keys(data: Any) -> set[str]:
    """The keys of a JSON value, at any depth, that name code: ``auto_map``
    and a true ``trust_remote_code``."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "auto_map" or (key == "trust_remote_code" and value):
                found.add(key)
            found |= _code_keys(value)
    elif isinstance(data, list):
        for value in data:
            found |= _code_keys(value)
    return found


def model_kind(config: dict) -> str:
    """``classifier``, ``seq2seq`` or ``causal``: what a model directory's
    ``config.json`` says the model is (its ``architectures``, else
    ``is_encoder_decoder``)."""
    names = config.get("architectures") or []
    if any(str(n).endswith("ForSequenceClassification") for n in names):
        return "classifier"
    if config.get("is_encoder_decoder") or any(
        "ConditionalGeneration" in str(n) or str(n).endswith("Seq2SeqLM") for n in names
    ):
        return "seq2seq"
    return "causal"


def is_classifier(spec: str) -> bool:
    """Whether ``hf:DIR`` names a sequence classifier (a model that answers with a label and writes
    no text), as far as its config.json says; False where it cannot be read (:func:`open_hf` reports that)."""
    path = Path(spec[len(PREFIX) :] if spec.startswith(PREFIX) else spec).expanduser() / "config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and model_kind(config) == "classifier"


def open_hf(
    spec: str,
    *,
    task: str | None = None,
    device: str | None = None,
    prompt: str | None = None,
    read: Callable[[str, bool], Any] | None = None,
    max_tokens: int = 1024,
) -> "HfAdapter":
    """The adapter of ``hf:DIR``. ``read(text, truncated)`` reads a label or
    a generated text (the task's reader); without it, the reader and the
    shipped prompt of ``task``. A language model needs a prompt: ``prompt``,
    else the task's shipped one; a sequence classifier reads the program as
    it is, and a ``prompt`` for it is a UsageError (``--prompt``)."""
    directory = Path(spec[len(PREFIX) :] if spec.startswith(PREFIX) else spec).expanduser()
    if not directory.is_dir():
        raise ModelError(
            "no such model directory (hf:DIR names a directory written by save_pretrained)", path=str(directory)
        )
    if not (directory / "config.json").is_file():
        raise ModelError("not a transformers model directory: it has no config.json", path=str(directory))
    refuse_code(directory)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    kind = model_kind(config)
    if kind == "classifier" and task is not None and task not in CLASSIFIED:
        raise UsageError(
            f"a sequence classifier answers {' or '.join(CLASSIFIED)} with its label, not {task}: "
            "audit a language model for that task",
            path="--task",
        )
    if kind == "classifier" and prompt is not None:
        raise UsageError(
            "a sequence classifier reads the program as it is and takes no prompt: leave --prompt out, "
            "or audit a language model",
            path="--prompt",
        )
    if read is None and task is not None:
        read = _task_reader(task)
    if kind != "classifier":
        prompt = prompt if prompt is not None else _shipped_prompt(task)
        if "{program}" not in prompt:
            raise UsageError("the prompt template has no {program} placeholder", path="--prompt")
        if read is None:
            raise UsageError("an hf: language model needs --task: the task reads its answers", path="--task")
    return HfAdapter(
        directory, kind, _load(directory, kind, device), prompt=prompt, read=read, max_tokens=max_tokens, device=device
    )


def _task_reader(task: str) -> Callable[[str, bool], Any]:
    from ..tasks import answers

    def read(text: str, truncated: bool = False):
        return answers.read(task, text, truncated=truncated)

    return read


def _shipped_prompt(task: str | None) -> str:
    if task is None:
        raise UsageError("an hf: language model needs --task (the task's prompt and reader) or --prompt", path="--task")
    from ..tasks import answers

    return answers.prompt(task)


def _load(directory: Path, kind: str, device: str | None) -> tuple[Any, Any]:
    """The tokenizer and the model of ``directory``, on ``device``, in eval mode."""
    try:
        import transformers
    except ImportError:
        raise ModelError(f"hf: models need transformers: {INSTALL}", path="--model") from None
    classes = {
        "classifier": transformers.AutoModelForSequenceClassification,
        "causal": transformers.AutoModelForCausalLM,
        "seq2seq": transformers.AutoModelForSeq2SeqLM,
    }
    offline = {"local_files_only": True, "trust_remote_code": False}
    # transformers' notes on a config and its bar of weights loaded are not the audit's output: they went
    # to stderr between invar's located lines, -q or not (an error still comes back as the exception below)
    logging = transformers.utils.logging
    verbosity, bar = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(directory), **offline)
        model = classes[kind].from_pretrained(str(directory), **offline)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # noqa: BLE001 - transformers raises OSError, ValueError, KeyError … for a bad directory
        raise ModelError(f"cannot load the {kind} model ({_describe(err)})", path=str(directory)) from None
    finally:  # as the caller had them
        logging.set_verbosity(verbosity)
        if bar:
            logging.enable_progress_bar()
    if tokenizer.pad_token is None:  # batches need one; never read, the attention mask hides it
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    tokenizer.padding_side = "left" if kind == "causal" else "right"
    return tokenizer, model.to(device or "cpu").eval()


class HfAdapter(Adapter):
    """A local transformers model (:func:`open_hf`). Deterministic (greedy),
    so the audit treats it as a checkpoint that reads texts."""

    kind = "checkpoint"

    def __init__(
        self,
        directory: Path,
        model_kind: str,
        loaded: tuple[Any, Any],
        *,
        prompt: str | None,
        read: Callable[[str, bool], Any] | None,
        max_tokens: int,
        device: str | None,
    ) -> None:
        super().__init__()
        self.directory = directory
        #: ``classifier``, ``causal`` or ``seq2seq``
        self.model_kind = model_kind
        self.tokenizer, self.network = loaded
        #: the prompt template (None: a sequence classifier, which reads the program as it is)
        self.template = prompt
        self.read = read
        self.max_tokens = max_tokens
        self.device = device or "cpu"
        #: the most tokens a prompt and its answer may take together (the model's positions), or None
        self.positions = _positions(self.network.config)

    def info(self) -> dict:
        names = getattr(self.network.config, "architectures", None) or [type(self.network).__name__]
        return {
            "kind": self.kind,
            "path": f"{PREFIX}{self.directory}",
            "arch": names[0],
            "size": _parameters(sum(p.numel() for p in self.network.parameters())),
        }

    def call(self, batch: list) -> Sequence:
        import torch

        with torch.inference_mode():
            if self.model_kind == "classifier":
                return self._classify(list(batch))
            return self._generate(list(batch))

    # ----------------------------------------------------------- classifier
    def _classify(self, texts: list[str]) -> list:
        encoded = [self.tokenizer(t)["input_ids"] for t in texts]
        fits = [k for k, ids in enumerate(encoded) if self.positions is None or len(ids) <= self.positions]
        out: list = [Failure(self._too_long(len(ids), 0)) for ids in encoded]
        if fits:
            batch = self.tokenizer([texts[k] for k in fits], padding=True, return_tensors="pt").to(self.device)
            best = self.network(**batch).logits.argmax(-1).tolist()
            labels = self.network.config.id2label
            for k, i in zip(fits, best):
                out[k] = self._label(str(labels.get(i, labels.get(str(i), i))))
        return out

    def _label(self, name: str):
        """A label name as the task's prediction: read by the task's reader
        (``LABEL_k`` as ``k``); the name itself without a reader."""
        default = _DEFAULT_LABEL.match(name)
        text = default.group(1) if default else name
        if self.read is None:
            return text
        try:
            return _reply(self.read(text, False))
        except ValueError as err:
            return Failure(f"the model's label {name!r} is no answer of the task ({err})")

    # ------------------------------------------------------- language models
    def _generate(self, programs: list[str]) -> list:
        prompts = [self._prompt_ids(p) for p in programs]
        out: list = [None] * len(programs)
        fits = []
        for k, ids in enumerate(prompts):
            if not self._fits(len(ids)):
                out[k] = Failure(self._too_long(len(ids), self.max_tokens))
            else:
                fits.append(k)
        if fits:
            for k, (text, truncated) in zip(fits, self._greedy([prompts[k] for k in fits])):
                try:
                    out[k] = _reply(self.read(text, truncated))
                except ValueError as err:
                    out[k] = Failure(str(err))
        return out

    def _prompt_ids(self, program: str) -> list[int]:
        """The token ids of a program's prompt: the template filled in, through
        the chat template (a causal LM whose tokenizer has one)."""
        text = self.template.replace("{program}", program)
        if self.model_kind == "causal" and getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": text}], add_generation_prompt=True, tokenize=True
            )
            return list(ids["input_ids"] if hasattr(ids, "keys") else ids)
        return list(self.tokenizer(text)["input_ids"])

    def _greedy(self, prompts: list[list[int]]) -> list[tuple[str, bool]]:
        """Each prompt's greedy continuation (at most ``max_tokens`` tokens) as
        text, and whether it stopped at that limit rather than at an end token."""
        import torch

        pad = self.tokenizer.pad_token_id
        width = max(len(p) for p in prompts)
        left = self.model_kind == "causal"
        rows = [[pad] * (width - len(p)) + p if left else p + [pad] * (width - len(p)) for p in prompts]
        mask = [
            [0] * (width - len(p)) + [1] * len(p) if left else [1] * len(p) + [0] * (width - len(p)) for p in prompts
        ]
        ids = torch.tensor(rows, device=self.device)
        generated = self.network.generate(
            input_ids=ids,
            attention_mask=torch.tensor(mask, device=self.device),
            do_sample=False,
            num_beams=1,
            max_new_tokens=self.max_tokens,
            pad_token_id=pad,
        )
        new = generated[:, width:] if left else generated
        ends = _end_tokens(self.network.generation_config)
        out = []
        for row in new.tolist():
            if not left and row and row[0] == self.network.generation_config.decoder_start_token_id:
                row = row[1:]
            stopped = any(t in ends for t in row)
            out.append(
                (self.tokenizer.decode(row, skip_special_tokens=True), not stopped and len(row) >= self.max_tokens)
            )
        return out

    def _fits(self, tokens: int) -> bool:
        """Whether a prompt of ``tokens`` tokens and its answer fit the
        model's positions: together for a causal LM, each on its side of a
        seq2seq model (its decoder starts with one token of its own)."""
        if self.positions is None:
            return True
        if self.model_kind == "causal":
            return tokens + self.max_tokens <= self.positions
        return tokens <= self.positions and self.max_tokens + 1 <= self.positions

    def _too_long(self, tokens: int, answer: int) -> str:
        also = f" and --max-tokens {answer}" if answer else ""
        return f"the input is {tokens} tokens{also}: this model takes {self.positions} positions"


def _reply(reading: Any):
    """A reader's reading as the audit's :class:`Reply` (a plain value as it is)."""
    if all(hasattr(reading, a) for a in ("value", "candidates", "segment")):
        return Reply(reading.value, reading.candidates, reading.segment)
    return Reply(reading)


def _end_tokens(generation_config) -> set[int]:
    ends = generation_config.eos_token_id
    return set() if ends is None else set(ends) if isinstance(ends, (list, tuple)) else {ends}


def _positions(config) -> int | None:
    """The most positions a model takes (absolute position embeddings), or
    None when it has no such limit (relative positions, as T5's)."""
    for name in ("max_position_embeddings", "n_positions", "max_sequence_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _parameters(n: int) -> str:
    """``124.4M parameters``: a model's size as the report's ``size``."""
    for unit, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g}{unit} parameters"
    return f"{n} parameters"


__all__ = ["PREFIX", "INSTALL", "CLASSIFIED", "HfAdapter", "open_hf", "refuse_code", "model_kind"]
