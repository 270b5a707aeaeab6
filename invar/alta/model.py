"""A compiled ALTA checkpoint as invar's commands read it.

:func:`from_checkpoint` turns the data of an ``arch`` ``alta`` checkpoint
(:mod:`.store` writes it) into a :class:`CompiledModel`, which
:func:`invar.load_model` returns (it finds this module through
``invar.checkpoint.COMPILED``, by name). The model reads texts, as the
``alta`` task writes its inputs (tokens separated by spaces), and answers
with the program's output at each input position (the prefix and suffix
markers it adds left out), shown by the program's output labels and joined
by spaces. It carries its own oracle: the interpreter of the program it was
compiled from, so an audit's ``--oracle`` labels every variant with the
program's true answer; and it names the symbols it reads (``pool``), so an
audit's renamings map each input's symbols into them, not only among
themselves.

Imports ``errors``, ``checkpoint`` and the ALTA modules below it; never
train, audit or cli.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from ..checkpoint import check_sizes
from ..errors import InvarError, ModelError
from .compiler import Compiled, compile_program
from .interpreter import interpreter
from ..tasks.alta import POOL
from .spec import AltaError, AltaProgram

ARCH = "alta"


class CompiledModel:
    """A compiled program behind the interface the audit and ``invar predict`` use."""

    #: the audit gives it each variant's text, not an encoding
    reads_text = True
    task = "alta"
    languages = ("alta",)

    def __init__(self, compiled: Compiled, path: str | None = None) -> None:
        self.compiled = compiled
        self.program: AltaProgram = compiled.program
        self.path = path
        #: the interchangeable symbols the program reads (its alphabet's letters
        #: a-z): an audit's renamings map an input's symbols into these
        self.pool = tuple(s for s in self.program.alphabet if s in POOL)

    def info(self) -> dict:
        return {"arch": ARCH, "size": self.program.name}

    def to(self, device: str | torch.device | None) -> "CompiledModel":
        if device:
            self.compiled.to(device)
        return self

    # ------------------------------------------------------------ predictions
    def predict_texts(
        self, texts: Sequence[str], *, device: str | torch.device | None = None, batch_size: int = 256
    ) -> list[str]:
        """The compiled model's answer for each input text (a batch that
        cannot be read raises; the audit then takes its inputs one by one)."""
        out: list[str] = []
        for start in range(0, len(texts), batch_size):
            chunk = list(texts[start : start + batch_size])
            ids, valid, _tokens = self.compiled.batch(chunk, device=device or self._device())
            with torch.inference_mode():
                values, _layers = self.compiled(ids, valid)
            for k, text in enumerate(chunk):
                n = len(text.split())
                out.append(self._shown(values[k, len(self.program.prefix) : len(self.program.prefix) + n].tolist()))
        return out

    def predict(self, programs: Sequence, *, batch_size: int = 256, device: str | None = None) -> list[str]:
        """The answer for each program of the ``alta`` task (its rendered text)."""
        return self.predict_texts([p.render() for p in programs], device=device, batch_size=batch_size)

    def check(self, program) -> None:
        """ModelError when the model cannot read ``program`` (a symbol outside
        its alphabet, more positions than it has values for)."""
        from .interpreter import token_ids, tokens_of

        try:
            token_ids(self.program, tokens_of(self.program, program.render()))
        except AltaError as err:
            raise ModelError(err.message) from None

    # ------------------------------------------------------------ the truth
    def oracle(self, texts: Sequence[str]) -> list[tuple[Any, str]]:
        """The interpreter's answer for each text, or ``(None, why)``."""
        run = interpreter(self.program)
        out: list[tuple[Any, str]] = []
        for text in texts:
            try:
                result = run.run(text)
            except InvarError as err:
                out.append((None, err.message))
                continue
            first = len(self.program.prefix)
            out.append((self._shown(result.outputs[first : first + len(text.split())]), ""))
        return out

    def _shown(self, values: Sequence[int]) -> str:
        return " ".join(self.program.label(int(v)) for v in values)

    def _device(self) -> torch.device:
        return next(self.compiled.parameters(), torch.empty(0)).device


def from_checkpoint(data: dict, path: str, device: str | None = None) -> CompiledModel:
    """The model of a loaded ``arch`` ``alta`` checkpoint (ModelError, at
    ``path``, when its program or weights do not hold together)."""
    if data.get("arch") != ARCH or not isinstance(data.get("program"), str):
        arch = data.get("arch") or (data.get("config") or {}).get("arch")
        what = "its program is missing" if arch == ARCH else f"its arch is {arch!r}, not {ARCH!r}"
        raise ModelError(f"not a compiled ALTA model: {what}", path=path)
    try:
        program = AltaProgram.from_json(data["program"])
        sizes = {f"variable {v.name!r} size": v.size for v in program.variables}
        check_sizes({}, data.get("state_dict"), path, fields=sizes)
        compiled = compile_program(program, lam=float(data["config"]["lam"]))
    except AltaError as err:
        raise ModelError(f"inconsistent checkpoint: {err.message}", path=path) from None
    except (KeyError, TypeError, ValueError) as err:
        raise ModelError(f"inconsistent checkpoint ({type(err).__name__}: {err})", path=path) from None
    try:
        compiled.load_state_dict(data.get("state_dict"))
    except (RuntimeError, TypeError, AttributeError) as err:
        raise ModelError(
            f"inconsistent checkpoint: its weights do not fit its program ({type(err).__name__})", path=path
        ) from None
    return CompiledModel(compiled.eval(), path).to(device)


__all__ = ["CompiledModel", "from_checkpoint", "ARCH"]
