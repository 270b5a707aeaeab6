"""Exact arithmetic on the huge integers that counts and indices of spaces
become (100,000 interchangeable locals have a count of 456,574 digits).

CPython before 3.12 converts an int to decimal text and divides two ints in
time quadratic in their length; these do both in time near the cost of a
multiplication, with the ``decimal`` module's fast arithmetic for the text
and Burnikel–Ziegler recursion for the division (the algorithms CPython 3.12
adopted in its private ``_pylong`` module).
"""

from __future__ import annotations

import decimal
import json

#: below this many bits the builtin conversions are fast (and never refused:
#: it is under Python's default limit of 4,300 digits)
_SMALL_BITS = 12_000
#: below this many bits of quotient the builtin ``divmod`` is used
_DIV_LIMIT = 4_000


def decimal_string(n: int) -> str:
    """``str(n)`` for any int, whatever its length and whatever
    ``sys.set_int_max_str_digits`` says."""
    if n.bit_length() <= _SMALL_BITS:
        return str(n)
    sign = "-" if n < 0 else ""
    return sign + str(_to_decimal(abs(n)))


def _to_decimal(n: int) -> decimal.Decimal:
    """``n >= 0`` as an exact Decimal: split it in halves of bits and join
    them as ``high * 2**w + low`` in decimal arithmetic."""
    D = decimal.Decimal
    powers: dict[int, decimal.Decimal] = {}

    def power(w: int) -> decimal.Decimal:
        got = powers.get(w)
        if got is None:
            if w <= 128:
                got = D(2) ** w
            elif w - 1 in powers:
                got = powers[w - 1] + powers[w - 1]
            else:
                got = power(w >> 1) * power(w - (w >> 1))
            powers[w] = got
        return got

    def inner(x: int, w: int) -> decimal.Decimal:
        if w <= 128:
            return D(x)
        half = w >> 1
        high = x >> half
        return inner(x - (high << half), half) + inner(high, w - half) * power(half)

    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        ctx.Emax = decimal.MAX_EMAX
        ctx.Emin = decimal.MIN_EMIN
        ctx.traps[decimal.Inexact] = True
        return inner(n, n.bit_length())


def parse_decimal(text: str) -> int:
    """``int(text)`` for a string of decimal digits of any length (whatever
    ``sys.set_int_max_str_digits`` says), halves joined by a multiplication
    by a power of ten: in time near a multiplication of the result."""
    powers: dict[int, int] = {}

    def inner(s: str) -> int:
        if len(s) <= 3000:
            return int(s)
        k = len(s) // 2
        power = powers.get(k)
        if power is None:
            power = powers[k] = 10**k
        return inner(s[:-k]) * power + inner(s[-k:])

    return inner(text)


def divmod_exact(a: int, b: int) -> tuple[int, int]:
    """``divmod(a, b)`` for ``a >= 0`` and ``b > 0``, subquadratic in their length."""
    if a.bit_length() - b.bit_length() <= _DIV_LIMIT or b.bit_length() <= _DIV_LIMIT:
        return divmod(a, b)
    n = b.bit_length()
    mask = (1 << n) - 1
    pieces = []
    while a:
        pieces.append(a & mask)
        a >>= n
    r = 0
    quotient_pieces = []
    for piece in reversed(pieces):
        q, r = _div2n1n((r << n) | piece, b, n)
        quotient_pieces.append(q)
    q = 0
    for piece in quotient_pieces:  # few pieces: a is rarely much longer than b here
        q = (q << n) | piece
    return q, r


def _div2n1n(a: int, b: int, n: int) -> tuple[int, int]:
    """``divmod(a, b)`` where ``b`` has ``n`` bits and ``a < b << n``."""
    if a.bit_length() - n <= _DIV_LIMIT:
        return divmod(a, b)
    pad = n & 1
    if pad:
        a, b, n = a << 1, b << 1, n + 1
    half = n >> 1
    mask = (1 << half) - 1
    b1, b2 = b >> half, b & mask
    q1, r = _div3n2n(a >> n, (a >> half) & mask, b, b1, b2, half)
    q2, r = _div3n2n(r, a & mask, b, b1, b2, half)
    if pad:
        r >>= 1
    return q1 << half | q2, r


def _div3n2n(a12: int, a3: int, b: int, b1: int, b2: int, n: int) -> tuple[int, int]:
    if a12 >> n == b1:
        q, r = (1 << n) - 1, a12 - (b1 << n) + b1
    else:
        q, r = _div2n1n(a12, b1, n)
    r = (r << n | a3) - q * b2
    while r < 0:
        q -= 1
        r += b
    return q, r


def json_dumps(value) -> str:
    """``json.dumps(value)`` (default separators), with every int written by
    :func:`decimal_string`, so a record holding a huge count or index is
    written in near-linear time."""
    if not _has_big(value):
        return json.dumps(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return decimal_string(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {json_dumps(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(json_dumps(v) for v in value) + "]"


def _has_big(value) -> bool:
    if isinstance(value, int):
        return value.bit_length() > _SMALL_BITS
    if isinstance(value, dict):
        return any(_has_big(v) for v in value.values() if isinstance(v, (int, dict, list, tuple)))
    if isinstance(value, (list, tuple)):
        return any(_has_big(v) for v in value if isinstance(v, (int, dict, list, tuple)))
    return False


def product(values) -> int:
    """The product of ``values``, multiplied pairwise up a balanced tree: in
    time near one multiplication of the result, where multiplying one by one
    costs the result's length once per factor."""
    level = [v for v in values if v != 1]
    while len(level) > 1:
        level = [level[i] * level[i + 1] if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    return level[0] if level else 1


__all__ = ["decimal_string", "divmod_exact", "json_dumps", "parse_decimal", "product"]
