"""Transfer between the levels of a renaming space, as products of polynomials.

A renaming space (:mod:`.renamings`) walks its referents in order; after
``i`` of them its **state** is how many targets of each atom are taken, a
vector ``u`` of naturals. Referent ``i`` takes a free target of one of its
class's atoms ``a``, one of ``s_a - u_a``, so the ways from state ``u`` before
referent ``lo`` to state ``v`` after referent ``hi - 1`` are

    M(lo, hi)[u][v] = coef(v - u) · F(u) / F(v),   F(u) = Π_a (s_a - u_a)!,

``coef(Δ)`` being the coefficient of ``z^Δ`` in ``P(lo, hi) = Π_{lo<=i<hi}
Σ_{a in atoms(i)} z_a``: the sequences of atoms the range's referents may
take that take ``Δ_a`` of each atom. (The free targets met along any such
sequence multiply to ``F(u) / F(v)``, whatever its order.) So a vector times
a transfer matrix is one product of polynomials between two scalings by
falling factorials, and no matrix is ever built: near-linear in the states,
where multiplying the matrices costs the cube of their number.

Polynomials are multiplied by Kronecker substitution: each coefficient gets a
slot of bytes in one integer, the slots of an array of several variables laid
out with strides that leave room for the product's extents, so that one
multiplication of two integers multiplies two polynomials. One atom's
coordinate follows from the others (every state of a level has taken as many
targets as referents passed), so it is dropped, and a vector lives in the box
of its level's states. The polynomials of ranges are kept on a product tree
over the referents, each cut to the differences its two levels allow (a path
between two live states passes only through live states, all inside the
boxes, so the cut loses no term that counts).

Part of the symmetry layer: imports only :mod:`.bigint` from invar.
"""

from __future__ import annotations

import decimal
import math
from typing import Mapping, Sequence

from .bigint import decimal_string, parse_decimal, product

State = tuple[int, ...]
#: a polynomial or a vector: exponents (the kept coordinates), or a state -> value
Poly = dict[State, int]


#: most terms a class's power ``(Σ z_a)^m`` may have to be expanded at once
_POWER_TERMS = 4096


def _compositions(m: int, parts: int):
    """Every tuple of ``parts`` naturals summing to ``m``."""
    if parts == 1:
        yield (m,)
        return
    for first in range(m, -1, -1):
        for rest in _compositions(m - first, parts - 1):
            yield (first, *rest)


def multinomial(parts: Sequence[int]) -> int:
    """``(Σ parts)! / Π parts!``."""
    out, total = 1, 0
    for k in parts:
        total += k
        out *= math.comb(total, k)
    return out


def _box(points) -> tuple[State, State]:
    """Componentwise (minimum, maximum) of vectors of one length."""
    pts = list(points)
    return tuple(map(min, zip(*pts))), tuple(map(max, zip(*pts)))


def _points(lo: State, hi: State) -> list[State]:
    """Every vector of the box from ``lo`` to ``hi``."""
    pts: list[State] = [()]
    for a, b in zip(lo, hi):
        pts = [p + (x,) for p in pts for x in range(a, b + 1)]
    return pts


def convolve(a: Mapping[State, int], b: Mapping[State, int], keep: Sequence[State] | None = None) -> Poly:
    """The product of two polynomials with nonnegative coefficients, at the
    exponents ``keep`` (every one of the product when None).

    By the cheapest of three ways, as their costs are estimated: term by
    term (a multiplication per pair of terms, cheap where either has few
    terms or the coefficients are long); or by Kronecker substitution, each
    polynomial one number with a slot per coefficient, so that one
    multiplication of two numbers multiplies the polynomials: in binary for
    numbers of up to a few million bits (CPython multiplies them by
    Karatsuba), and in decimal past that (the ``decimal`` module multiplies
    long numbers by a number-theoretic transform, near-linear in their
    length)."""
    if not a or not b:
        return {}
    shape = _Shape(a, b)
    how = shape.cheapest()
    if how == "terms":
        return shape.termwise(a, b, keep)
    keep = _points(shape.r_lo, shape.r_hi) if keep is None else keep
    return (shape.binary if how == "binary" else shape.decimal)(a, b, keep)


class _Shape:
    """Two polynomials to multiply: their sizes, the product's box and what
    each way of multiplying them would cost (in rough microseconds, measured
    on CPython 3.11)."""

    def __init__(self, a: Mapping[State, int], b: Mapping[State, int]) -> None:
        self.bits_a = max(c.bit_length() for c in a.values())
        self.bits_b = max(d.bit_length() for d in b.values())
        self.pairs = len(a) * len(b)
        (a_lo, a_hi), (b_lo, b_hi) = _box(a), _box(b)
        self.r_lo = tuple(p + q for p, q in zip(a_lo, b_lo))
        self.r_hi = tuple(p + q for p, q in zip(a_hi, b_hi))
        self.strides, self.volume = [], 1
        for lo, hi in zip(self.r_lo, self.r_hi):
            self.strides.append(self.volume)
            self.volume *= hi - lo + 1
        self.los = (a_lo, b_lo)
        #: bits a slot needs: any coefficient of the product
        self.slot_bits = self.bits_a + self.bits_b + min(len(a), len(b)).bit_length() + 1
        self.terms = len(a) + len(b)

    def cheapest(self) -> str:
        if self.pairs <= 4 * self.terms + 64:
            return "terms"
        da, db = self.bits_a // 30 + 1, self.bits_b // 30 + 1
        costs = {"terms": self.pairs * (0.15 + 0.00025 * da * db)}
        digits = self.volume * self.slot_bits / 30  # of the longer packed number, in machine digits
        short = self.volume * min(self.slot_bits, 30 * (da + db)) / 30
        if digits < 200_000:
            costs["binary"] = self.terms + 0.0003 * digits / short * short**1.585
        costs["decimal"] = self.terms * (1 + self.slot_bits / 3000) + 0.5 * digits
        return min(costs, key=costs.__getitem__)

    def flat(self, x: State, lo: State) -> int:
        return sum((p - q) * s for p, q, s in zip(x, lo, self.strides))

    def termwise(self, a: Mapping[State, int], b: Mapping[State, int], keep: Sequence[State] | None) -> Poly:
        """Term by term, a multiplication per pair of terms whose exponents
        add up to one of ``keep`` (every pair when ``keep`` is None); each
        exponent a position in the product's box, so that adding two is
        adding two integers."""
        b_terms = [(self.flat(y, self.los[1]), d) for y, d in b.items()]
        got: dict[int, int] = {}
        if keep is None:
            for x, c in a.items():
                at = self.flat(x, self.los[0])
                for q, d in b_terms:
                    got[at + q] = got.get(at + q, 0) + c * d
            return {self.point(f): c for f, c in got.items() if c}
        wanted = {}
        for z in keep:
            if all(lo <= p <= hi for p, lo, hi in zip(z, self.r_lo, self.r_hi)):
                wanted[self.flat(z, self.r_lo)] = z
        for x, c in a.items():
            at = self.flat(x, self.los[0])
            for q, d in b_terms:
                if at + q in wanted:
                    got[at + q] = got.get(at + q, 0) + c * d
        return {wanted[f]: c for f, c in got.items() if c}

    def point(self, f: int) -> State:
        """The exponent at position ``f`` of the product's box."""
        z = []
        for lo, hi in zip(self.r_lo, self.r_hi):
            f, p = divmod(f, hi - lo + 1)
            z.append(lo + p)
        return tuple(z)

    def binary(self, a: Mapping[State, int], b: Mapping[State, int], keep: Sequence[State]) -> Poly:
        """Kronecker substitution in binary, a slot of bytes per coefficient."""
        width = (self.slot_bits + 7) // 8

        def pack(poly: Mapping[State, int], lo: State) -> int:
            buf = bytearray(self.volume * width)
            for x, c in poly.items():
                at = self.flat(x, lo) * width
                buf[at : at + width] = c.to_bytes(width, "little")
            return int.from_bytes(buf, "little")

        data = (pack(a, self.los[0]) * pack(b, self.los[1])).to_bytes(self.volume * width, "little")
        out = {}
        for z in keep:
            if all(lo <= p <= hi for p, lo, hi in zip(z, self.r_lo, self.r_hi)):
                at = self.flat(z, self.r_lo) * width
                c = int.from_bytes(data[at : at + width], "little")
                if c:
                    out[z] = c
        return out

    def decimal(self, a: Mapping[State, int], b: Mapping[State, int], keep: Sequence[State]) -> Poly:
        """Kronecker substitution in decimal, a slot of digits per coefficient
        (slot 0 the least significant, so the rightmost)."""
        width = int(self.slot_bits * 0.30103) + 2
        size = self.volume * width

        def pack(poly: Mapping[State, int], lo: State) -> decimal.Decimal:
            buf = bytearray(b"0" * size)
            for x, c in poly.items():
                digits = decimal_string(c).encode()
                end = size - self.flat(x, lo) * width
                buf[end - len(digits) : end] = digits
            return decimal.Decimal(buf.decode())

        with decimal.localcontext() as ctx:
            ctx.prec = decimal.MAX_PREC
            ctx.Emax = decimal.MAX_EMAX
            ctx.traps[decimal.Inexact] = True
            text = str(pack(a, self.los[0]) * pack(b, self.los[1])).rjust(size, "0")
        out = {}
        for z in keep:
            if all(lo <= p <= hi for p, lo, hi in zip(z, self.r_lo, self.r_hi)):
                end = size - self.flat(z, self.r_lo) * width
                c = parse_decimal(text[end - width : end])
                if c:
                    out[z] = c
        return out


def split(lo: int, hi: int, leaf: int) -> int:
    """Where the product tree cuts a range of more than ``leaf`` referents:
    after the first half of its leaves (rounded up), so that every leaf but
    the last of the whole tree holds ``leaf`` referents (a cut in the
    middle leaves them half full past a power of two leaves: twice the
    nodes, each a product)."""
    leaves = -(-(hi - lo) // leaf)
    return lo + (leaves + 1) // 2 * leaf


def falling(top: int, length: int) -> int:
    """``top · (top - 1) ⋯ (top - length + 1)``, multiplied up a balanced tree."""
    return product(range(top - length + 1, top + 1)) if length > 0 else 1


def _ratios(s: int, r: int, lo: int, hi: int) -> dict[int, tuple[int, int]]:
    """``(s - u)! / (s - r)!`` for ``lo <= u <= hi``, as (numerator,
    denominator): a falling factorial on top for ``u <= r``, below for
    ``u > r``; each from its neighbour by one multiplication by a small number."""
    out: dict[int, tuple[int, int]] = {}
    top = min(hi, r)
    if lo <= top:
        val = falling(s - top, r - top)
        out[top] = (val, 1)
        for u in range(top - 1, lo - 1, -1):
            val *= s - u
            out[u] = (val, 1)
    low = max(lo, r + 1)
    if low <= hi:
        val = falling(s - r, low - r)
        out[low] = (1, val)
        for u in range(low + 1, hi + 1):
            val *= s - u + 1
            out[u] = (1, val)
    return out


class Transfer:
    """The transfer matrices of one renaming space's referents, as
    polynomials on a product tree.

    ``sizes``: targets per atom. ``atoms``: for each referent, the atoms it
    may take. ``levels``: for each level ``0..n``, its live states (full
    vectors, one coordinate per atom). ``leaf``: referents per leaf of the
    tree (a range is cut where :func:`split` says, as :mod:`.renamings` cuts it)."""

    def __init__(
        self, sizes: Sequence[int], atoms: Sequence[Sequence[int]], levels: Sequence[Sequence[State]], leaf: int
    ) -> None:
        self.sizes = tuple(sizes)
        self.atoms = atoms
        self.levels = levels
        self.leaf = leaf
        self.boxes = [_box(level) if level else (None, None) for level in levels]
        # drop the coordinate whose boxes are widest: it follows from the others
        width = [sum(hi[a] - lo[a] for lo, hi in self.boxes if lo is not None) for a in range(len(sizes))]
        self.drop = max(range(len(sizes)), key=width.__getitem__) if sizes else None
        self._polys: dict[tuple[int, int], Poly] = {}
        self._powers: dict[tuple[tuple[int, ...], int], Poly] = {}
        #: polynomial products made (the work the tree does, for tests)
        self.products = 0

    def reduce(self, u: State) -> State:
        """``u`` without the dropped coordinate."""
        d = self.drop
        return u if d is None else u[:d] + u[d + 1 :]

    def _linear(self, atoms: Sequence[int]) -> Poly:
        d = self.drop
        out: Poly = {}
        for a in atoms:
            z = tuple(int(b == a) for b in range(len(self.sizes)) if b != d)
            out[z] = out.get(z, 0) + 1
        return out

    def _bounds(self, lo: int, hi: int) -> tuple[State, State] | None:
        """The differences (kept coordinates) between live states of levels
        ``lo`` and ``hi``, as a box; None when a level has none."""
        (a_lo, a_hi), (b_lo, b_hi) = self.boxes[lo], self.boxes[hi]
        if a_lo is None or b_lo is None:
            return None
        low = self.reduce(tuple(max(0, p - q) for p, q in zip(b_lo, a_hi)))
        high = self.reduce(tuple(p - q for p, q in zip(b_hi, a_lo)))
        return low, high

    def _cut(self, lo: int, hi: int, poly: Poly, below_only: bool = False) -> Poly:
        """``poly`` without the exponents no pair of live states of levels
        ``lo`` and ``hi`` is apart by (``below_only``: only those too large,
        for a product still growing towards ``hi``)."""
        box = self._bounds(lo, hi)
        if box is None:
            return {}
        low, high = box
        if below_only:
            return {z: c for z, c in poly.items() if all(y <= w for y, w in zip(z, high))}
        return {z: c for z, c in poly.items() if all(x <= y <= w for x, y, w in zip(low, z, high))}

    def _leaf_poly(self, lo: int, hi: int) -> Poly:
        """``P(lo, hi)`` of a leaf, one product per class of referents in it
        (a class's ``m`` referents contribute ``(Σ z_a)^m``, its multinomial
        expansion), or per referent where that expansion would be large."""
        got: Poly = {tuple(0 for _ in range(len(self.sizes) - 1)) if self.sizes else (): 1}
        classes: dict[tuple[int, ...], int] = {}
        for i in range(lo, hi):
            key = tuple(self.atoms[i])
            classes[key] = classes.get(key, 0) + 1
        for atoms, m in classes.items():
            if math.comb(m + len(atoms) - 1, m) <= _POWER_TERMS:
                factors = [self._power(atoms, m)]
            else:
                factors = [self._linear(atoms)] * m
            for factor in factors:
                got = self._cut(lo, hi, convolve(got, factor), below_only=True)
                self.products += 1
        return got

    def _power(self, atoms: tuple[int, ...], m: int) -> Poly:
        """``(Σ_{a in atoms} z_a)^m``: the multinomial coefficient of every
        way to take ``m`` atoms of those (cached)."""
        key = (atoms, m)
        got = self._powers.get(key)
        if got is None:
            got = {}
            width = len(self.sizes)
            for parts in _compositions(m, len(atoms)):
                z = [0] * width
                for a, k in zip(atoms, parts):
                    z[a] += k
                z_key = self.reduce(tuple(z))
                got[z_key] = got.get(z_key, 0) + multinomial(parts)
            self._powers[key] = got
        return got

    def poly(self, lo: int, hi: int) -> Poly:
        """``P(lo, hi)``, cut to what levels ``lo`` and ``hi`` allow; cached."""
        key = (lo, hi)
        got = self._polys.get(key)
        if got is None:
            if hi - lo <= self.leaf:
                got = self._leaf_poly(lo, hi)
            else:
                mid = split(lo, hi, self.leaf)
                got = convolve(self.poly(lo, mid), self.poly(mid, hi))
                self.products += 1
            got = self._cut(lo, hi, got)
            self._polys[key] = got
        return got

    def row(self, lo: int, hi: int, f: Mapping[State, int]) -> dict[State, int]:
        """``f · M(lo, hi)``: ``f`` over live states of level ``lo``, the
        result over those of level ``hi`` (zeros left out)."""
        if not f or not self.levels[hi]:
            return {}
        sizes = self.sizes
        top = _box(f)[1]  # F(u) / F(top) is a whole number for u <= top
        falls_lo = [_ratios(s, r, a, b) for s, r, a, b in zip(sizes, top, *_box(f))]
        scaled: Poly = {}
        for u, c in f.items():
            for table, x in zip(falls_lo, u):
                c *= table[x][0]
            scaled[self.reduce(u)] = c
        target = self.levels[hi]
        got = convolve(scaled, self.poly(lo, hi), [self.reduce(v) for v in target])
        self.products += 1
        t_lo, t_hi = self.boxes[hi]
        falls_hi = [_ratios(s, r, a, b) for s, r, a, b in zip(sizes, top, t_lo, t_hi)]
        out = {}
        for v in target:
            c = got.get(self.reduce(v))
            if c:
                num, den = _fraction(falls_hi, v)
                out[v] = c * den // num  # times F(top) / F(v)
        return out

    def col(self, lo: int, hi: int, w: Mapping[State, int] | None) -> dict[State, int]:
        """``M(lo, hi) · w``: ``w`` over live states of level ``hi`` (all
        ones when None), the result over those of level ``lo`` (zeros left out)."""
        target, source = self.levels[lo], self.levels[hi]
        if w is None:
            w = dict.fromkeys(source, 1)
        if not w or not target:
            return {}
        sizes = self.sizes
        bottom = _box(w)[0]  # F(bottom) / F(v) is a whole number for v >= bottom
        falls_hi = [_ratios(s, r, a, b) for s, r, a, b in zip(sizes, bottom, *_box(w))]
        scaled: Poly = {}
        for v, c in w.items():
            for table, x in zip(falls_hi, v):
                c *= table[x][1]
            # the product's exponent u + Δ = v is read at -u: negate
            scaled[tuple(-p for p in self.reduce(v))] = c
        got = convolve(scaled, self.poly(lo, hi), [tuple(-p for p in self.reduce(u)) for u in target])
        self.products += 1
        t_lo, t_hi = self.boxes[lo]
        falls_lo = [_ratios(s, r, a, b) for s, r, a, b in zip(sizes, bottom, t_lo, t_hi)]
        out = {}
        for u in target:
            c = got.get(tuple(-p for p in self.reduce(u)))
            if c:
                num, den = _fraction(falls_lo, u)
                out[u] = c * num // den  # times F(u) / F(bottom)
        return out


def _fraction(tables, state) -> tuple[int, int]:
    """The product over the coordinates of ``state`` of their ratios in
    ``tables`` (each a (numerator, denominator) pair), as one fraction."""
    num = den = 1
    for table, x in zip(tables, state):
        n, d = table[x]
        num *= n
        den *= d
    return num, den


__all__ = ["Transfer", "convolve", "falling", "split"]
