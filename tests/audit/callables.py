"""Hand-built models with known answers, for audits of Python callables
(``--model tests.audit.callables:distinct_registers``). Each takes a list of
program texts (AT&T assembly) and returns one prediction per text."""

from __future__ import annotations

import math
import re
import threading

_REGISTER = re.compile(r"%([a-z0-9]+)")
_GPR = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"] + [f"r{i}" for i in range(8, 16)]
_BASE = {}
for _n, _r in enumerate(_GPR):
    _BASE[_r] = _n
for _n, names in enumerate(
    [
        ("eax", "ax", "al", "ah"),
        ("ecx", "cx", "cl", "ch"),
        ("edx", "dx", "dl", "dh"),
        ("ebx", "bx", "bl", "bh"),
        ("esp", "sp", "spl"),
        ("ebp", "bp", "bpl"),
        ("esi", "si", "sil"),
        ("edi", "di", "dil"),
    ]
):
    for _name in names:
        _BASE[_name] = _n
for _i in range(8, 16):
    for _suffix in ("d", "w", "b"):
        _BASE[f"r{_i}{_suffix}"] = _i


def register_number(name: str) -> int:
    """GPRs by encoding number (rax 0 … r15 15), vector registers 100 + N,
    anything else (rip, segment registers) -1."""
    if name in _BASE:
        return _BASE[name]
    m = re.fullmatch(r"[xyz]mm(\d+)", name)
    return 100 + int(m.group(1)) if m else -1


def registers(text: str) -> list[int]:
    return [register_number(n) for n in _REGISTER.findall(text)]


def distinct_registers(texts):
    """How many distinct registers a block names: the same for every renaming."""
    return [float(len(set(registers(t)))) for t in texts]


def first_register_number(texts):
    """The number of the first register a block names: a renaming changes it."""
    return [float(next(iter(registers(t)), -1)) for t in texts]


def flaky(texts):
    """distinct_registers, except that it raises on blocks with a lea, returns
    NaN for blocks with an imul, and drops one prediction of every batch that
    holds a block with a shl (and returns none for such a block alone)."""
    if any("lea" in t for t in texts):
        raise ValueError("lea is not supported")
    out = [math.nan if "imul" in t else v for t, v in zip(texts, distinct_registers(texts))]
    if any("shl" in t for t in texts):
        out = out[:-1]
    return out


def fails_on_mov(texts):
    """distinct_registers, except that it raises on any block with a mov:
    most of the fixture blocks fail, a few are audited."""
    if any("mov" in t for t in texts):
        raise ValueError("mov is not supported")
    return distinct_registers(texts)


def uses_rbx(texts):
    """A discrete answer: whether a block names rbx (renamings change it)."""
    return ["yes" if 3 in registers(t) else "no" for t in texts]


def first_register_name(texts):
    """The first register a block names, as written (``%rbx``): renaming the
    block renames the answer the same way (equivariant)."""
    return [next(iter(_REGISTER.findall(t)), "none") for t in texts]


# ------------------------------------------------- one per failure kind
# Each answers distinct_registers, except on blocks with a lea, where it
# fails in its own way (so a batch that mixes both must be split up).
def _on_lea(texts, failure):
    return failure() if any("lea" in t for t in texts) else distinct_registers(texts)


def returns_dict(texts):
    """A dict (its keys are the programs, not predictions)."""
    return _on_lea(texts, lambda: {t: 1.0 for t in texts})


def returns_generator(texts):
    return _on_lea(texts, lambda: (v for v in distinct_registers(texts)))


def returns_str(texts):
    return _on_lea(texts, lambda: "2.0" * len(texts))


def returns_set(texts):
    return _on_lea(texts, lambda: set(distinct_registers(texts)))


def returns_none(texts):
    return _on_lea(texts, lambda: None)


def returns_number(texts):
    return _on_lea(texts, lambda: 2.0)


def returns_0d_array(texts):
    import numpy as np

    return _on_lea(texts, lambda: np.float64(2.0))


def returns_huge_int(texts):
    """An int too large for a float for a block with a lea."""
    return [10**400 if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def returns_complex(texts):
    return [1 + 2j if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def returns_numeric_text(texts):
    """The string "2.5" for a block with a lea: text, not a number, however it reads."""
    return ["2.5" if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def returns_bytes(texts):
    return [b"2.5" if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def returns_bool(texts):
    """True for a block with a lea: a truth value, not a count of cycles."""
    return [True if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def returns_fraction(texts):
    """A Fraction: a real number, read as one."""
    from fractions import Fraction

    return [Fraction(5, 2) if "lea" in t else v for t, v in zip(texts, distinct_registers(texts))]


def exits(texts):
    """sys.exit(3): the model's error, not the audit's end."""
    import sys

    return _on_lea(texts, lambda: sys.exit(3))


def exits_quietly(texts):
    import sys

    return _on_lea(texts, lambda: sys.exit())


class Abort(BaseException):
    """An exception outside Exception's hierarchy (as GeneratorExit, SystemExit)."""


def raises_base_exception(texts):
    def fail():
        raise Abort("stop everything")

    return _on_lea(texts, fail)


#: set by the tests once an audit is over: a hung call returns then
RELEASE = threading.Event()


def hangs(texts):
    """Never answers for a block with a lea (until RELEASE is set)."""

    def wait():
        RELEASE.wait()
        return [0.0] * len(texts)

    return _on_lea(texts, wait)


def interrupted(texts):
    raise KeyboardInterrupt


# answers read as predictions: several shapes of one list
def returns_tuple(texts):
    return tuple(distinct_registers(texts))


def returns_array(texts):
    import numpy as np

    return np.asarray(distinct_registers(texts))


def returns_tensor(texts):
    import torch

    return torch.tensor(distinct_registers(texts))


def returns_deque(texts):
    import collections

    return collections.deque(distinct_registers(texts))


# discrete answers that are not JSON values
def returns_objects(texts):
    return [object() if "lea" in t else "yes" for t in texts]


def returns_sets(texts):
    return [{"a", "b"} if "lea" in t else "yes" for t in texts]


def returns_nan_label(texts):
    return [math.nan if "lea" in t else "yes" for t in texts]


# ---------------------------------------------------- trivially invariant
def constant(texts):
    """2.5 whatever the block: invariant, and useless."""
    return [2.5 for _ in texts]


def almost_constant(texts):
    """2.5, moved by float rounding (1e-9 relative): within any tolerance a constant."""
    return [2.5 * (1 + 1e-9 * (len(t) % 3)) for t in texts]


def says_no(texts):
    return ["no" for _ in texts]


def no_bug(texts):
    return [0 for _ in texts]


def register_count_then_zero(texts):
    """distinct_registers for the first block of a batch, 0 for the rest: neither constant nor useful."""
    return [v if k == 0 else 0.0 for k, v in enumerate(distinct_registers(texts))]


def first_only(texts):
    """distinct_registers of a batch's first block alone: one prediction for any batch (a bug in a batch adapter)."""
    return distinct_registers(texts[:1])
