"""Self-contained functions of a directory, and the calls invar draws for them
(``invar data exec --source DIR``).

**Which functions.** Every top-level function (``def``, not ``async def``;
no method, no nested function) of every ``.py`` file under DIR that the
Python frontend reads and that is **self-contained**: every name it uses is
its own (a parameter, a local, an import inside it), a builtin, or its own
name (a recursive call). One that reads a module's global, an import at the
top of its file, or a ``global`` name is skipped and counted. Its text is
stored as it stands in its file.

**Which calls.** The arguments come from an inputs file when it names the
function (``--inputs FILE``: JSON lines ``{"function": NAME, "input":
"ARGUMENTS"}``, UTF-8, a byte-order mark dropped, with ``"path"``, a string
relative to DIR, to tell apart functions of one name), else they are drawn,
seeded by the function's path, line and name, from the parameters'
annotations (the **literal types**):

=====================  ====================================================
annotation             drawn value
=====================  ====================================================
``int``                an integer from -5 to 10
``float``              a number from -10 to 10, two decimals
``bool``               True or False
``str`` / ``bytes``    0 to 8 characters of ``abcxyz`` and a space
``None``               None
``list[T]``            0 to 5 elements of T (bare ``list``: of ints)
``tuple[T, ...]``      0 to 5 elements of T; ``tuple[A, B]``: one of each
``set[T]``             0 to 5 elements of T (bare ``set``: of ints)
``dict[K, V]``         0 to 4 entries (bare ``dict``: str to int)
``Optional[T]``        None one time in five, else T
``A | B``, ``Union``   one of the members, uniformly
=====================  ====================================================

``typing``'s spellings (``List[int]``, ``typing.Dict``) and annotations
written as strings are read alike. A parameter with a default and no
annotation keeps its default (it is not passed), as do ``*args`` and
``**kwargs``; a keyword-only parameter is passed by name. A function with a
parameter that has neither a type above nor a default is skipped and
counted. ``calls`` distinct calls are drawn per function (fewer when its
parameters have fewer values). Arguments are written as canonical literals
(:func:`invar.sandbox.literal`), so the same seed writes the same text.

**The inputs file.** A function gets the calls of the lines that name its
path, then those of the lines that name no path (these are for every
function of that name). A line that is not such a row, or whose ``"path"``
is not a string (``null`` is no path), is an error at its line, as is one
that names a function that is not there; one for a function that is there
but skipped (it reads a global) is left out and counted, under the skipped
function's reason (:func:`targets`' third value), so no line is lost unsaid.
"""

from __future__ import annotations

import ast
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import DataError, InvarError
from ..frontends.units import own_name

_SCALARS = {
    "int": lambda r: r.randint(-5, 10),
    "float": lambda r: round(r.uniform(-10, 10), 2),
    "bool": lambda r: r.random() < 0.5,
    "None": lambda r: None,
    "NoneType": lambda r: None,
    "str": lambda r: _text(r),
    "bytes": lambda r: _text(r).encode("ascii"),
}
_BARE = {
    "list": ("list", ["int"]),
    "List": ("list", ["int"]),
    "tuple": ("tuple", ["int", ...]),
    "Tuple": ("tuple", ["int", ...]),
    "set": ("set", ["int"]),
    "Set": ("set", ["int"]),
    "dict": ("dict", ["str", "int"]),
    "Dict": ("dict", ["str", "int"]),
}
_GENERIC = {
    "list": "list",
    "List": "list",
    "Sequence": "list",
    "Iterable": "list",
    "tuple": "tuple",
    "Tuple": "tuple",
    "set": "set",
    "Set": "set",
    "dict": "dict",
    "Dict": "dict",
    "Mapping": "dict",
    "Optional": "optional",
    "Union": "union",
}
#: how many times a draw is tried for each distinct call asked
_TRIES = 5


@dataclass(frozen=True)
class Target:
    """A function to call, and the calls it gets."""

    #: the file, relative to the source directory
    path: str
    line: int
    name: str
    #: the function's text, as it stands in its file
    code: str
    #: the calls' arguments (``1, [2, 3]``)
    inputs: tuple[str, ...]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice("abcxyz ") for _ in range(rng.randint(0, 8)))


# ------------------------------------------------------------------- types
def drawer(node: ast.expr | None) -> Callable[[random.Random], Any] | None:
    """A seeded drawer of values of the annotation ``node`` (the table of
    the module docstring), or None for a type it does not know."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "list[int]"
        try:
            return drawer(ast.parse(node.value, mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):
            return None
    if isinstance(node, ast.Constant) and node.value is None:
        return _SCALARS["None"]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([drawer(node.left), drawer(node.right)])
    name = _name(node.value if isinstance(node, ast.Subscript) else node)
    if not isinstance(node, ast.Subscript):
        if name in _SCALARS:
            return _SCALARS[name]
        if name in _BARE:
            kind, args = _BARE[name]
            return _container(kind, [_SCALARS[a] if a is not ... else ... for a in args])
        return None
    kind = _GENERIC.get(name)
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    args = [... if isinstance(a, ast.Constant) and a.value is ... else drawer(a) for a in items]
    if kind is None or any(a is None for a in args):
        return None
    if kind == "optional":
        return _union([args[0], _SCALARS["None"]], weights=(4, 1)) if len(args) == 1 else None
    if kind == "union":
        return _union(args)
    return _container(kind, args)


def _name(node: ast.expr) -> str | None:
    """``int``, ``typing.List`` -> ``List``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("typing", "t"):
        return node.attr
    return None


def _union(members: list, weights=None):
    if any(m is None for m in members):
        return None
    return lambda r: r.choices(members, weights=weights)[0](r)


def _container(kind: str, args: list):
    """A drawer of a list, tuple, set or dict of the drawers ``args``."""
    if kind in ("list", "set") and len(args) == 1 and args[0] is not ...:
        make = list if kind == "list" else set
        return lambda r: make(args[0](r) for _ in range(r.randint(0, 5)))
    if kind == "tuple" and len(args) == 2 and args[1] is ...:
        return lambda r: tuple(args[0](r) for _ in range(r.randint(0, 5)))
    if kind == "tuple" and ... not in args:
        return lambda r: tuple(a(r) for a in args)
    if kind == "dict" and len(args) == 2 and ... not in args:
        return lambda r: {args[0](r): args[1](r) for _ in range(r.randint(0, 4))}
    return None


# -------------------------------------------------------------- functions
def self_contained(unit) -> bool:
    """Whether every name a function uses is its own, a builtin, or its own name."""
    own = own_name(unit.name)
    return not any(t.view in ("global", "free") and t.text != own for t in unit.tokens)


def signature(code: str) -> tuple[list[tuple[str, Callable | None, bool]], str | None]:
    """The function's parameters to pass, ``(name, drawer, by keyword)``,
    or a reason it cannot be called with drawn arguments."""
    fn = ast.parse(code).body[0]
    if isinstance(fn, ast.AsyncFunctionDef):
        return [], "async"
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out, omitted = [], False
    for arg, default in list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
        draw = drawer(arg.annotation)
        if draw is None and default is None:
            return [], "a parameter of no type invar draws (annotate it, or give inputs with --inputs)"
        if draw is None:
            omitted = omitted or arg in positional  # it keeps its default
        elif not (omitted and arg in a.posonlyargs):  # after an omitted one, by keyword (or its default)
            out.append((arg.arg, draw, arg in a.kwonlyargs or omitted))
    return out, None


def draw_inputs(params, rng: random.Random, calls: int) -> list[str]:
    """Up to ``calls`` distinct argument texts drawn for ``params``."""
    from ..sandbox import literal

    out: dict[str, None] = {}
    for _ in range(calls * _TRIES):
        if len(out) >= calls:
            break
        try:
            parts = [(f"{name}=" if by_keyword else "") + literal(draw(rng)) for name, draw, by_keyword in params]
        except TypeError:  # an unhashable element drawn for a set or a key
            continue
        out.setdefault(", ".join(parts), None)
    return list(out)


class Inputs(dict):
    """An inputs file read: ``(path or None, function) -> [arguments]``,
    with the file's name and the line each key first appears on (so that a
    call of a function that is not there is located where it is asked)."""

    def __init__(self, path: str | Path):
        super().__init__()
        self.path = str(path)
        self.lines: dict[tuple[str | None, str], int] = {}


#: what a line of an inputs file must be
_ROW = 'expected {"function": NAME, "input": "ARGUMENTS"} with arguments that parse'


def read_inputs(path: str | Path, text: str | None = None) -> Inputs:
    """An inputs file: ``(path or None, function) -> [arguments]``; a
    located DataError for a line that is not a row (the module docstring).
    ``text``: the file's text when it is already read (standard input:
    ``path`` is then the name errors show, ``<stdin>``); else the file at
    ``path`` is read, as UTF-8, a byte-order mark dropped."""
    out = Inputs(path)
    if text is None:
        text = _read(path)
    # lines end at "\n" alone: a JSON string may hold U+2028 or a form feed, which splitlines() breaks at
    for lineno, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            name, arguments = row["function"], row["input"]
            if not isinstance(name, str) or not isinstance(arguments, str):
                raise TypeError
            call = ast.parse(f"f({arguments})", mode="eval").body  # "1), g(2" would be a tuple, not one call
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                raise SyntaxError
        except (ValueError, KeyError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise DataError(_ROW, path=str(path), line=lineno, col=1) from None
        where = row.get("path")
        if where is not None and not (isinstance(where, str) and where):
            shown = json.dumps(where, ensure_ascii=False)
            raise DataError(
                f'"path" is {shown if len(shown) <= 30 else shown[:29] + "…"}, not a file: give the file\'s path '
                "(a string) relative to the source directory",
                path=str(path),
                line=lineno,
                col=1,
            )
        out.setdefault((where, name), []).append(arguments)
        out.lines.setdefault((where, name), lineno)
    return out


def _read(path: str | Path) -> str:
    """The text of the inputs file ``path`` (a located DataError when it
    cannot be read or is not UTF-8)."""
    from ..frontends import decode

    try:
        return decode(Path(path).read_bytes(), "", str(path))
    except FileNotFoundError:
        raise DataError("no such file", path=str(path)) from None
    except IsADirectoryError:
        raise DataError("is a directory, not a file", path=str(path)) from None
    except OSError as err:
        raise DataError(f"cannot read: {err.strerror}", path=str(path)) from None
    except InvarError as err:  # NUL bytes, not UTF-8, empty
        raise DataError(err.message, path=err.path, line=err.line, col=err.col) from None


def targets(source: str | Path, seed: int, calls: int, inputs: dict | None = None) -> tuple[list[Target], dict, dict]:
    """The functions of ``source`` to call, with their calls; what was
    skipped and why (reason -> functions); and the calls of ``inputs`` left
    out because every function they name was skipped (reason -> calls)."""
    from .names import read_units, source_files

    root = Path(source)
    inputs = inputs or {}
    out, skipped, seen = [], {}, set()
    used: set = set()  # the inputs' keys whose calls a target makes
    skipped_as: dict = {}  # an inputs' key -> why a function it names was skipped
    for rel in source_files(root):
        if not rel.endswith(".py"):
            continue
        units, unreadable = read_units(root / rel, rel)
        if units is None:
            skipped[f"in files not read ({unreadable})"] = skipped.get(f"in files not read ({unreadable})", 0) + 1
            continue
        for unit in units:
            keys = ((rel, own_name(unit.name)), (None, own_name(unit.name)))
            seen.update(keys)
            target, why = _target(unit, rel, seed, calls, inputs)
            if why is not None:
                skipped[why] = skipped.get(why, 0) + 1
                for key in keys:
                    skipped_as.setdefault(key, why)
            else:
                out.append(target)
                used.update(keys)
    _check_known(inputs, seen, source)
    left_out: dict[str, int] = {}
    for key, given in inputs.items():
        if key not in used:  # every function of its name skipped: its calls counted, not lost
            why = f"given for a function skipped: {skipped_as[key]}"
            left_out[why] = left_out.get(why, 0) + len(given)
    return out, skipped, left_out


def _check_known(inputs: dict, seen: set, source: str | Path) -> None:
    """A call of a function that is not there is said, not left out unsaid:
    a DataError at the first line of ``inputs`` that asks for one (at the
    source directory when the inputs come from no file)."""
    lines = getattr(inputs, "lines", {})
    unknown = sorted((key for key in inputs if key not in seen), key=lambda k: (lines.get(k, 0), k[0] or "", k[1]))
    if not unknown:
        return
    shown = ", ".join(f"{path}:{name}" if path else name for path, name in unknown)
    what = "a function that is" if len(unknown) == 1 else "functions that are"
    if isinstance(inputs, Inputs):
        raise DataError(f"calls {what} not in {source}: {shown}", path=inputs.path, line=lines[unknown[0]], col=1)
    raise DataError(f"--inputs calls {what} not here: {shown}", path=str(source))


def _target(unit, rel: str, seed: int, calls: int, inputs: dict) -> tuple[Target | None, str | None]:
    name = own_name(unit.name)  # a redefined function is called by its own name
    if "." in name or name == "<module>":
        return None, "not a top-level function"
    if not self_contained(unit):
        return None, "not self-contained (it reads a global)"
    code, line = unit.render() + "\n", unit.lines[0].source_line
    given = [*inputs.get((rel, name), ()), *inputs.get((None, name), ())]  # its path's calls, then its name's
    if given:
        return Target(rel, line, name, code, tuple(given)), None
    params, why = signature(code)
    if why is not None:
        return None, why
    drawn = draw_inputs(params, random.Random(f"{seed}:{rel}:{line}:{name}"), calls)
    return Target(rel, line, name, code, tuple(drawn)), None


__all__ = ["Inputs", "Target", "drawer", "self_contained", "signature", "draw_inputs", "read_inputs", "targets"]
