"""Arithmetic programs of the ALTA paper (appendix D.2, D.3): addition and SUBLEQ.

``addition`` (Figures 12–13) adds two numbers written digit by digit,
most significant first, both padded to the same number of digits N::

    <s> a_1 … a_N + b_1 … b_N </s>

(:func:`addition_input` writes this; the markers are the program's prefix
and suffix). Three pointers walk left one digit per layer: ``ptr_a`` over
a, ``ptr_b`` over b, ``ptr_out`` over the positions receiving the sum.
Every position adds the two pointed digits and the carry; the ``ptr_out``
position keeps the digit. When ``ptr_a`` reaches ``<s>`` the last carry goes
where ``ptr_out`` stands (the ``+``). The sum's N + 1 digits are
``value_out`` at the ``+`` and at b's digits (:func:`addition_result`).
Layers: one to place the pointers, N digit steps, one that sees ``<s>``,
one that writes the last carry: N + 3 (the paper says N + 2).

``subleq`` (Figures 14–15) interprets SUBLEQ: the input symbols are the
registers (values ``-M … M-1`` for ``M`` registers, so every non-negative
value is an address), and an instruction ``A B C`` at ``pc`` does
``mem[B] -= mem[A]`` then jumps to ``C`` when the result is ≤ 0 (halting
when ``C < 0``), else goes to ``pc + 3``. It halts as well when ``A`` or
``B`` is negative, and when the next instruction does not fit in memory;
results wrap around into ``-M … M-1``. Each instruction takes three layers:
fetch (check ``A``, ``B``; keep them and whether this position is ``B``),
execute (write ``mem[B]``, decide the jump), jump (read ``C`` from memory as
it stands after the write, as Figure 14 does, and move ``pc``). Heads of one
layer all read the stream before it, so the fetched addresses are kept in
variables (``ra``, ``rb``) for the next layer's heads, where the paper's
heads read other heads' outputs. :func:`subleq_input` and
:func:`subleq_memory` convert registers to symbols and back.

Both are written with :class:`~.lang.MLPBuilder`. Addition enumerates its
rules as the paper's rule-level version does (every value of every variable
read: 16,466 rules, 884 of them in its minimal version on short inputs);
SUBLEQ loops over the values each rule needs only.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .lang import MLPBuilder, program, qkv, relative, var
from .spec import AltaError, AltaProgram

START, END, PLUS = "<s>", "</s>", "+"
DIGITS = tuple(str(d) for d in range(10))
#: the addition program's symbols; a token's id is its index (a digit's id is the digit)
ADDITION_ALPHABET = (*DIGITS, PLUS, START, END)
_PLUS_ID, _START_ID, _END_ID = (ADDITION_ALPHABET.index(s) for s in (PLUS, START, END))
#: the addition program's steps
INIT, ITERATE, FINALIZE, DONE = range(4)

#: SUBLEQ's default number of registers
DEFAULT_REGISTERS = 16
#: SUBLEQ's default layer budget (the paper's 60: twenty instructions)
DEFAULT_SUBLEQ_LAYERS = 60
#: the SUBLEQ program's states
FETCH, EXECUTE, JUMP, HALTED = range(4)


# ------------------------------------------------------------------ addition
def addition() -> AltaProgram:
    """The paper's addition program (Figures 12–13), its rules enumerated by
    :class:`MLPBuilder` as the paper's rule-level version does: every value of
    every variable read, carries 0–9 and head outputs over the whole alphabet
    included. 16,466 rules (16,421 transitions and 45 null resets); its minimal
    version on inputs of up to three digits has the paper's 884."""
    n = len(ADDITION_ALPHABET)
    variables = {
        "token": var(n, token=ADDITION_ALPHABET.index),
        "step": var(4),
        "ptr_a": var(2),
        "ptr_b": var(2),
        "ptr_out": var(2),
        "value_carry": var(10),
        "value_out": var(10),
        "one": var(2, default=1),
    }
    heads = {
        "token_right": relative("token", 1),
        "ptr_a_right": relative("ptr_a", 1),
        "ptr_b_right": relative("ptr_b", 1),
        "ptr_out_right": relative("ptr_out", 1),
        "ptr_a_token": qkv("one", "ptr_a", "token"),
        "ptr_b_token": qkv("one", "ptr_b", "token"),
    }
    x = MLPBuilder(variables, heads)
    for step in x.get("step"):
        if step == INIT:
            _place_pointers(x)
            x.set("step", ITERATE)
        elif step == ITERATE:
            for a in x.get("ptr_a_token"):
                if a == _START_ID:
                    x.set("step", FINALIZE)
                else:
                    _add_digits(x, a)
                    _move_pointers(x)
        elif step == FINALIZE:
            for ptr_out in x.get("ptr_out"):
                if ptr_out == 1:
                    for carry in x.get("value_carry"):
                        x.set("value_out", carry)
            x.set("step", DONE)
    return program(
        variables,
        heads,
        x.rules,
        output="value_out",
        alphabet=ADDITION_ALPHABET,
        prefix=(START,),
        suffix=(END,),
        halt=("step", DONE),
        name="addition",
    )


def _place_pointers(x: MLPBuilder) -> None:
    """``ptr_b`` and ``ptr_out`` on b's last digit, ``ptr_a`` on a's. The end
    marker writes nothing, so no rule reads the head looking past it."""
    for token, right in x.get("token", "token_right"):
        if token == _END_ID:
            continue
        if right == _END_ID:
            x.set("ptr_b", 1)
            x.set("ptr_out", 1)
        if right == _PLUS_ID:
            x.set("ptr_a", 1)


def _add_digits(x: MLPBuilder, a: int) -> None:
    """One digit step: the new carry everywhere, the digit at ``ptr_out``.
    Token ids stand for digits, as in the paper (a digit's id is the digit)."""
    for carry, b in x.get("value_carry", "ptr_b_token"):
        total = carry + a + b
        for ptr_out in x.get("ptr_out"):
            if ptr_out == 1:
                x.set("value_out", total % 10)
        x.set("value_carry", total // 10)


def _move_pointers(x: MLPBuilder) -> None:
    """Every pointer takes its right neighbour's value (the end marker has none)."""
    for token in x.get("token"):
        if token == _END_ID:
            continue
        for name in ("ptr_out", "ptr_a", "ptr_b"):
            for right in x.get(f"{name}_right"):
                x.set(name, right)


def addition_input(a: int, b: int) -> list[str]:
    """The symbols of ``a + b`` (markers excluded), both padded to the same number of digits."""
    if a < 0 or b < 0:
        raise AltaError(f"addition adds non-negative integers, not {a} and {b}")
    width = max(len(str(a)), len(str(b)))
    return [*str(a).zfill(width), PLUS, *str(b).zfill(width)]


def addition_result(tokens: Sequence[str], outputs: Sequence[int]) -> int:
    """The sum a run computed: ``value_out`` at the ``+`` and at b's digits."""
    plus = list(tokens).index(PLUS)
    end = list(tokens).index(END)
    return int("".join(str(d) for d in outputs[plus:end]))


# ------------------------------------------------------------------ SUBLEQ
def subleq(registers: int = DEFAULT_REGISTERS, max_layers: int = DEFAULT_SUBLEQ_LAYERS) -> AltaProgram:
    """The paper's SUBLEQ interpreter (Figures 14–15) for ``registers`` registers
    holding values ``-registers … registers-1``, run for at most ``max_layers`` layers."""
    m = int(registers)
    if m < 3:
        raise AltaError(f"SUBLEQ needs at least 3 registers (one instruction), not {m}")
    span = 2 * m  # values -m … m-1, stored as value + m
    alphabet = tuple(str(v) for v in range(-m, m))
    variables = {
        "mem": var(span, token=lambda t: int(t) + m),
        "pos": var(m, position=lambda i: i),
        "pos_a": var(m, default=0),
        "pos_b": var(m, default=1),
        "pos_c": var(m, default=2),
        "ra": var(m),
        "rb": var(m),
        "here": var(2),
        "state": var(4),
        "jump": var(2),
    }
    heads = {
        "a": qkv("pos_a", "pos", "mem"),
        "b": qkv("pos_b", "pos", "mem"),
        "c": qkv("pos_c", "pos", "mem"),
        "mem_a": qkv("ra", "pos", "mem"),
        "mem_b": qkv("rb", "pos", "mem"),
    }
    x = MLPBuilder(variables, heads)
    for state in x.get("state"):
        if state == FETCH:
            _fetch(x, m)
        elif state == EXECUTE:
            _execute(x, m)
        elif state == JUMP:
            _jump(x, m)
    return program(
        variables,
        heads,
        x.rules,
        output="mem",
        alphabet=alphabet,
        halt=("state", HALTED),
        max_length=m,
        max_layers=max_layers,
        name="subleq",
    )


def _fetch(x: MLPBuilder, m: int) -> None:
    """Halt on a negative address; else keep both addresses and whether this position is B."""
    for a in x.get("a"):
        if a < m:
            x.set("state", HALTED)
            continue
        x.set("ra", a - m)
        for b in x.get("b"):
            if b < m:
                x.set("state", HALTED)
                continue
            x.set("state", EXECUTE)
    for b in x.get("b"):
        if b >= m:
            x.set("rb", b - m)
            for pos in x.get("pos"):
                x.set("here", int(pos == b - m))


def _wrap(value: int, m: int) -> int:
    """``value`` wrapped into ``-m … m-1``."""
    return (value + m) % (2 * m) - m


def _execute(x: MLPBuilder, m: int) -> None:
    """``mem[B] -= mem[A]`` at position B; every position decides the jump."""
    x.set("state", JUMP)
    for mem_a, mem_b in x.get("mem_a", "mem_b"):
        result = _wrap((mem_b - m) - (mem_a - m), m)
        x.set("jump", int(result <= 0))
        for here in x.get("here"):
            if here == 1:
                for mem in x.get("mem"):
                    if mem == mem_b:  # position B holds mem[B]
                        x.set("mem", result + m)


def _jump(x: MLPBuilder, m: int) -> None:
    """To ``C`` (halting when negative) or to the next instruction; halt when it does not fit."""
    for jump in x.get("jump"):
        if jump == 1:
            for c in x.get("c"):
                _go_to(x, c - m, m)
        else:
            for pc in x.get("pos_a"):
                _go_to(x, pc + 3, m)


def _go_to(x: MLPBuilder, pc: int, m: int) -> None:
    if pc < 0 or pc + 2 >= m:
        x.set("state", HALTED)
        return
    x.set("state", FETCH)
    for offset, name in enumerate(("pos_a", "pos_b", "pos_c")):
        x.set(name, pc + offset)


def subleq_input(memory: Sequence[int]) -> list[str]:
    """The symbols of a memory (one register per symbol)."""
    return [str(int(v)) for v in memory]


def subleq_memory(program_: AltaProgram, outputs: Sequence[int]) -> list[int]:
    """The registers a run ended with (its outputs decoded)."""
    return [int(program_.alphabet[o]) for o in outputs]


#: the arithmetic programs by name (keyword options as their builders take them)
ARITHMETIC: dict[str, Callable[..., AltaProgram]] = {"addition": addition, "subleq": subleq}
