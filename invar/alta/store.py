"""Where programs come from and where compiled models go.

:func:`load_program` reads a shipped name or ``file.py:function`` (that
file's code runs, because the user named it). :func:`save_compiled` writes
an ordinary invar checkpoint (:mod:`invar.checkpoint`): ``arch`` ``alta``,
the weights, λ and the program as JSON; :func:`load_compiled` reads it with
``torch.load(weights_only=True)``, rebuilds the module from the program and
loads the stored weights into it (refused when they do not fit its shapes).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path
from typing import Any

from ..checkpoint import load, save
from ..errors import UsageError
from .compiler import Compiled
from .model import ARCH
from .programs import PROGRAMS, get_program
from .spec import AltaError, AltaProgram


def load_program(spec: str, *, max_length: int | None = None) -> AltaProgram:
    """The program named by ``spec``: a shipped name, or ``path.py:function``
    (a function returning a AltaProgram; ``max_length`` is passed when given).

    A ``.py`` file that is missing is said first (an AltaError at the file,
    with or without a function named); then a file named without its
    function. A ``max_length`` that the program takes no parameter for is a
    :class:`UsageError` at ``max_length``."""
    options: dict[str, Any] = {} if max_length is None else {"max_length": max_length}
    if spec in PROGRAMS:
        _check_options(PROGRAMS[spec], options, spec)
        return get_program(spec, **options)
    path, sep, name = spec.rpartition(":")
    if not sep:  # prog.py: a file, and no function
        path, name = spec, ""
    if not path.endswith(".py"):
        raise AltaError(
            f"unknown program {spec!r}: give a shipped name ({', '.join(sorted(PROGRAMS))}) or FILE.py:FUNCTION"
        )
    _check_file(path)
    if not name:
        raise AltaError(f"name the function in it that builds the program: {path}:FUNCTION", path=path)
    fn = _function_of(path, name)
    _check_options(fn, options, spec)
    prog = _guarded(path, fn, **options)
    if not isinstance(prog, AltaProgram):
        raise AltaError(f"{name} returned {type(prog).__name__}, not an AltaProgram", path=path)
    return prog


def _check_file(path: str) -> None:
    """A located AltaError when ``path`` is not a file."""
    if not Path(path).is_file():
        raise AltaError("is a directory, not a file" if Path(path).is_dir() else "no such file", path=path)


def _function_of(path: str, name: str):
    module_name = "invar_alta_user_" + Path(path).stem
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise AltaError("cannot be read as Python", path=path)
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except SyntaxError as err:
        raise AltaError(f"invalid Python: {err.msg}", path=path, line=err.lineno or 0, col=err.offset or 0)
    except (Exception, SystemExit) as err:  # the named file failed as it ran (sys.exit too): say where in it
        raise _failure(path, err) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise AltaError(f"no function {name!r}", path=path)
    return fn


def _guarded(path: str, fn, **options):
    try:
        return fn(**options)
    except AltaError:
        raise
    except (Exception, SystemExit) as err:  # the named function failed (sys.exit too): say where in its file
        raise _failure(path, err) from None


def _failure(path: str, err: BaseException) -> AltaError:
    if isinstance(err, AltaError):
        return err
    line, tb = 0, err.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == Path(path).resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return AltaError(f"{type(err).__name__}: {err}", path=path, line=line)


def _check_options(fn, options: dict, spec: str) -> None:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    for key in options:
        if key not in params and not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            raise UsageError(f"{spec} takes no {key} (it has no length bound to set)", path=key)


def payload(model: Compiled) -> dict:
    """What :func:`save_compiled` stores: plain data and tensors only."""
    return {
        "kind": "model",
        "task": ARCH,
        "arch": ARCH,
        "config": {"arch": ARCH, "lam": model.lam, "max_length": model.program.max_length},
        "program": model.program.to_json(),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "metrics": {},
    }


def save_compiled(path: str | os.PathLike, model: Compiled) -> None:
    save(path, payload(model))


def load_compiled(path: str | os.PathLike) -> Compiled:
    """The compiled model stored at ``path`` (a ModelError for anything else)."""
    from .model import from_checkpoint

    return from_checkpoint(load(path), str(path)).compiled
