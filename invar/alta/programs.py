"""The programs invar ships, by name (:data:`PROGRAMS`, :func:`get_program`).

Parity, three ways (the ALTA paper, appendix D.1), each giving at every
position a bit whose last value is the parity of the input bits:

* ``parity-relative``: a start marker, then each position takes the parity
  of its left neighbour (a relative head) once that neighbour is done; it
  halts when every position is done, after N − 1 layers for N positions.
* ``parity-absolute``: the same walk, the left neighbour found by its
  absolute position (``idx_left`` → ``idx``); positions up to ``max_length``.
* ``parity-sum-mod``: one head averages an end marker's 1 over the ones and
  the marker, giving 1 / (ones + 1); the MLP turns each bucket into a
  parity. Its buckets reach ``max_length`` ones.

Programs over symbol strings (``sort``, ``distinct-count``, ``histogram``, ``palindrome``,
``reverse``, ``contains-a``, ``first-is-a``) are in :mod:`.probes`.
"""

from __future__ import annotations

from typing import Callable

from .probes import contains_a, distinct_count, first_is_a, histogram, palindrome, reverse, sort_distinct
from .arithmetic import ARITHMETIC
from .lang import END, START, MLPBuilder, numerical, program, qkv, relative, var
from .spec import AltaError, AltaProgram

#: the default length bound of the programs that have one
DEFAULT_MAX_LENGTH = 40


def _sequential_rules(variables: dict, heads: dict) -> list:
    """The walk both sequential programs share: a position not yet done whose
    left neighbour is done takes ``parity_left xor parity`` and is done."""
    x = MLPBuilder(variables, heads)
    for done in x.get("done"):
        if done != 1:
            for done_left in x.get("done_left"):
                if done_left == 1:
                    x.set("done", 1)
                    for parity_left, parity in x.get("parity_left", "parity"):
                        x.set("parity", parity_left ^ parity)
    return x.rules


def parity_relative() -> AltaProgram:
    """Sequential parity with relative positions (the paper's Figure 8)."""
    variables = {"parity": var(2, token=lambda t: int(t == "1")), "done": var(2, token=lambda t: int(t == START))}
    heads = {"parity_left": relative("parity", -1), "done_left": relative("done", -1)}
    return program(
        variables,
        heads,
        _sequential_rules(variables, heads),
        output="parity",
        alphabet=("0", "1", START),
        prefix=(START,),
        halt=("done", 1),
        name="parity-relative",
    )


def parity_absolute(max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """Sequential parity with absolute positions, for inputs of up to ``max_length`` bits."""
    variables = {
        "parity": var(2, token=lambda t: int(t == "1")),
        "done": var(2, position=lambda i: int(i == 0)),
        "idx": var(max_length, position=lambda i: i),
        "idx_left": var(max_length, position=lambda i: max(0, i - 1)),
    }
    heads = {"parity_left": qkv("idx_left", "idx", "parity"), "done_left": qkv("idx_left", "idx", "done")}
    return program(
        variables,
        heads,
        _sequential_rules(variables, heads),
        output="parity",
        alphabet=("0", "1"),
        halt=("done", 1),
        max_length=max_length,
        name="parity-absolute",
    )


def parity_sum_mod(max_length: int = DEFAULT_MAX_LENGTH) -> AltaProgram:
    """Parity as the number of ones modulo 2 (the paper's Figure 7), for up to ``max_length`` ones."""
    variables = {
        "parity": var(2),
        "end": numerical((0, 1), token=lambda t: float(t == END)),
        "end_or_one": var(2, token=lambda t: int(t in ("1", END))),
        "query": var(2, default=1),
    }
    buckets = sorted(1 / k for k in range(1, max_length + 2))
    heads = {"inv_ones": qkv("query", "end_or_one", "end", output=numerical(buckets))}
    x = MLPBuilder(variables, heads)
    for inv_ones in x.get("inv_ones"):
        ones = round(1 / inv_ones) - 1
        x.set("parity", ones % 2)
    return program(
        variables,
        heads,
        x.rules,
        output="parity",
        alphabet=("0", "1", END),
        suffix=(END,),
        max_layers=1,
        name="parity-sum-mod",
    )


#: every shipped program: name -> a function building it (keyword options such as ``max_length``)
PROGRAMS: dict[str, Callable[..., AltaProgram]] = {
    "parity-relative": parity_relative,
    "parity-absolute": parity_absolute,
    "parity-sum-mod": parity_sum_mod,
    "sort": sort_distinct,
    "distinct-count": distinct_count,
    "histogram": histogram,
    "palindrome": palindrome,
    "reverse": reverse,
    "contains-a": contains_a,
    "first-is-a": first_is_a,
    **ARITHMETIC,
}


def get_program(name: str, **options) -> AltaProgram:
    """The shipped program ``name``; options the builder does not take are refused."""
    builder = PROGRAMS.get(name)
    if builder is None:
        raise AltaError(f"unknown program {name!r}; shipped: {', '.join(sorted(PROGRAMS))}")
    try:
        return builder(**options)
    except TypeError as err:
        raise AltaError(f"program {name!r}: {err}") from None
