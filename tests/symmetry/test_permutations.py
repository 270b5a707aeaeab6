"""Permutations are exactly the linear extensions of the dependency order."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest
from scipy.stats import chisquare

from invar.errors import SpaceError
from invar.program import Line, Program, Token
from invar.symmetry.permutations import IntractableError, Permutation, PermutationSpace


def flat(texts, deps, name="t") -> Program:
    """A flat program (one block) whose tokens are its whitespace-separated words."""
    lines = tuple(Line(t, source_line=i + 1) for i, t in enumerate(texts))
    tokens = []
    for i, text in enumerate(texts):
        pos = 0
        for word in text.split():
            at = text.index(word, pos)
            tokens.append(Token(word, "name", "local", word if word.isidentifier() else None, i, at))
            pos = at + len(word)
    return Program("toy", lines, tuple(tokens), deps=tuple(sorted(deps)), name=name)


def brute(n: int, deps) -> list[tuple[int, ...]]:
    """Every order of n lines keeping each dependency (each pair ``(i, j)``:
    line i before line j), in lexicographic order: the orders of all n! whose
    every prefix keeps them, built one line at a time, so that an order is
    given up at its first broken pair rather than tried to its end."""
    before = [0] * n  # per line, the lines that must come first, as a bit set
    for i, j in deps:
        before[j] |= 1 << i
    out: list[tuple[int, ...]] = []
    order: list[int] = []

    def extend(placed: int) -> None:
        if len(order) == n:
            out.append(tuple(order))
            return
        for line in range(n):
            if not placed >> line & 1 and not before[line] & ~placed:
                order.append(line)
                extend(placed | 1 << line)
                order.pop()

    extend(0)
    return out


def test_brute_tries_every_order():
    """The brute force above against a plain filter of itertools.permutations."""
    rng = random.Random(0)
    for _ in range(30):
        n = rng.randint(1, 6)
        deps = random_deps(n, rng)
        plain = [o for o in itertools.permutations(range(n)) if all(o.index(i) < o.index(j) for i, j in deps)]
        assert brute(n, deps) == plain


def random_deps(n: int, rng: random.Random) -> list[tuple[int, int]]:
    density = rng.random() * 0.7
    return [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < density]


# the SPE paper's earnings function (dependencies: RAW, WAR, WAW on variables)
EARNINGS = flat(
    ["income = rent + salary", "bonus = lottery", "income = income * 12", "income = income + bonus", "return income"],
    [(0, 2), (0, 3), (0, 4), (1, 3), (2, 3), (2, 4), (3, 4)],
    name="earnings",
)
XYZ = flat(["x = 1", "y = x", "z = 2"], [(0, 1)])


def test_earnings_has_exactly_three_orders_and_never_swaps_lines_3_and_4():
    space = PermutationSpace(EARNINGS)
    assert space.count() == 3
    orders = [t.order for t in space.enumerate()]
    assert orders == [(0, 1, 2, 3, 4), (0, 2, 1, 3, 4), (1, 0, 2, 3, 4)]
    swapped = (0, 1, 3, 2, 4)
    assert swapped not in orders
    assert swapped not in space
    assert all(t.order != swapped for t in space.sample(300, rng=7))
    with pytest.raises(SpaceError, match="depends on"):
        space.rank(swapped)


def test_layer_proxy_order_is_never_produced():
    space = PermutationSpace(XYZ)
    assert space.count() == 3
    orders = {t.order for t in space.enumerate()}
    assert orders == {(0, 1, 2), (0, 2, 1), (2, 0, 1)}
    assert (2, 1, 0) not in space
    assert all(t.order != (2, 1, 0) for t in space.sample(200, rng=3))
    assert space.apply(None, Permutation((2, 0, 1))).render() == "z = 2\nx = 1\ny = x"


@pytest.mark.parametrize("seed", range(40))
def test_count_enumeration_and_ranks_match_brute_force(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 8)
    deps = random_deps(n, rng)
    space = PermutationSpace(flat([f"l{i}" for i in range(n)], deps))
    expected = brute(n, deps)
    assert space.count() == len(expected)
    orders = [t.order for t in space.enumerate()]
    assert orders == sorted(expected)  # lexicographic, identity first
    assert orders[0] == tuple(range(n))
    # every rank of a space of up to 1,000 orders (all but one seed's), and a seeded 1,000 of a larger one
    indices = range(len(orders)) if len(orders) <= 1000 else [0, len(orders) - 1, *rng.sample(range(len(orders)), 1000)]
    for index in indices:
        assert space.rank(orders[index]) == index
        assert space.unrank(index).order == orders[index]
    assert [t.order for t in space.enumerate(limit=2)] == orders[:2]


def test_closed_forms():
    antichain = PermutationSpace(flat([f"l{i}" for i in range(30)], []))
    assert antichain.count() == math.factorial(30)
    chain = PermutationSpace(flat([f"l{i}" for i in range(30)], [(i, i + 1) for i in range(29)]))
    assert chain.count() == 1
    # two chains of 12 lines interleaved in the source, plus 3 free lines
    a, b = range(0, 24, 2), range(1, 24, 2)
    two = [(x, y) for c in (a, b) for x, y in zip(c, c[1:])]
    assert PermutationSpace(flat([f"l{i}" for i in range(24)], two)).count() == math.comb(24, 12)
    free = PermutationSpace(flat([f"l{i}" for i in range(27)], two))
    assert free.count() == math.comb(24, 12) * 25 * 26 * 27


def test_unrank_of_a_huge_space_is_exact():
    space = PermutationSpace(flat([f"l{i}" for i in range(25)], [(0, 24)]))
    total = space.count()
    assert total == math.factorial(25) // 2
    for index in (0, 1, total // 3, total - 1):
        t = space.unrank(index)
        assert t in space and space.rank(t) == index
    with pytest.raises(SpaceError, match="out of range"):
        space.unrank(total)


def nested() -> Program:
    """def f():          (fixed)
         a = 1            block 1
         if a:            block 1, body below
             b = 2        block 2
             c = 3        block 2
         d = 4            block 1
         return 0         (fixed: a barrier)
         e = 5            block 1
         g = 6            block 1
    with ``a`` before ``if`` and nothing else ordered."""
    spec = [
        ("def f():", -1, 0),
        ("a = 1", 1, 1),
        ("if a:", 1, 1),
        ("b = 2", 2, 2),
        ("c = 3", 2, 2),
        ("d = 4", 1, 1),
        ("return 0", -1, 1),
        ("e = 5", 1, 1),
        ("g = 6", 1, 1),
    ]
    lines = tuple(Line(t, block=b, depth=d) for t, b, d in spec)
    return Program("toy", lines, (), deps=((1, 2),), name="f")


def valid_structure(order) -> bool:
    pos = {old: new for new, old in enumerate(order)}
    return (
        pos[0] == 0
        and pos[6] == 6  # fixed lines stay
        and pos[1] < pos[2]  # the dependency
        and {pos[3], pos[4]} == {pos[2] + 1, pos[2] + 2}  # the body follows its header
        and {pos[7], pos[8]} == {7, 8}  # nothing crosses the barrier
    )


def test_nested_blocks_are_a_product_and_bodies_travel_with_headers():
    space = PermutationSpace(nested())
    # block 1 before the barrier: a, if, d with a < if -> 3; body b, c -> 2; after it: e, g -> 2
    assert space.count() == 3 * 2 * 2
    orders = [t.order for t in space.enumerate()]
    assert len(set(orders)) == 12
    assert all(valid_structure(o) for o in orders)
    assert sum(valid_structure(o) for o in itertools.permutations(range(9))) == 12
    assert orders[0] == tuple(range(9))
    assert (0, 5, 1, 2, 3, 4, 6, 8, 7) in orders  # d first, e/g swapped
    assert (0, 1, 5, 2, 4, 3, 6, 7, 8) in orders  # c before b inside the moved if
    for index, order in enumerate(orders):
        assert space.rank(order) == index
        assert space.unrank(index).order == order
    assert (0, 1, 3, 2, 4, 5, 6, 7, 8) not in space  # body torn from its header


def test_exact_sampling_is_uniform():
    deps = [(0, 3), (1, 3), (2, 4), (3, 5)]
    space = PermutationSpace(flat([f"l{i}" for i in range(6)], deps))
    total = space.count()
    assert space.exact_sampling and total == len(brute(6, deps))
    draws = 100 * total
    seen = {}
    for t in space.sample(draws, rng=random.Random(11)):
        seen[t.order] = seen.get(t.order, 0) + 1
    assert set(seen) == set(brute(6, deps))
    assert chisquare(list(seen.values())).pvalue > 0.001


def test_sampling_is_deterministic_per_seed():
    space = PermutationSpace(flat([f"l{i}" for i in range(12)], [(0, 5), (3, 9)]))
    assert space.sample(20, rng=5) == space.sample(20, rng=5)
    assert space.sample(20, rng=5) != space.sample(20, rng=6)


@pytest.mark.parametrize("seed", range(15))
def test_intractable_count_is_refused_with_true_bounds(seed):
    rng = random.Random(100 + seed)
    n = rng.randint(5, 12)
    deps = random_deps(n, rng)
    program = flat([f"l{i}" for i in range(n)], deps)
    exact = PermutationSpace(program).count()
    narrow = PermutationSpace(program, max_states=n + 1)  # a chain's table only
    lower, upper = narrow.bounds()
    assert lower <= exact <= upper
    if narrow.tractable:
        assert narrow.count() == exact
    else:
        with pytest.raises(IntractableError) as err:
            narrow.count()
        assert (err.value.lower, err.value.upper) == (lower, upper)
        assert "too wide" in str(err.value)
        assert all(t in narrow for t in narrow.sample(3, rng=seed))
        assert [t.order for t in narrow.enumerate(limit=5)] == [
            t.order for t in PermutationSpace(program).enumerate(limit=5)
        ]


def test_markov_chain_sampling_is_uniform_on_a_small_poset():
    # an "N" (0 < 2 > 1 < 3), the smallest poset neither series nor parallel,
    # beside a free line: only the N's part runs the chain
    deps = [(0, 2), (1, 2), (1, 3)]
    program = flat([f"l{i}" for i in range(5)], deps)
    space = PermutationSpace(program, max_states=3)
    assert not space.exact_sampling
    expected = brute(5, deps)
    seen = {}
    for t in space.sample(40 * len(expected), rng=random.Random(2)):
        seen[t.order] = seen.get(t.order, 0) + 1
    assert set(seen) == set(expected)
    assert chisquare(list(seen.values())).pvalue > 0.001


def test_apply_carries_tokens_and_deps():
    space = PermutationSpace(EARNINGS)
    t = space.unrank(2)
    assert t.order == (1, 0, 2, 3, 4)
    moved = space.apply(EARNINGS, t)
    assert moved.render().splitlines()[:2] == ["bonus = lottery", "income = rent + salary"]
    assert moved.tokens[0].text == "bonus" and moved.tokens[0].line == 0
    assert all(i < j for i, j in moved.deps)
    assert PermutationSpace(moved).count() == 3
    assert t.inverse == (1, 0, 2, 3, 4) and not t.is_identity


def test_bad_orders_and_deps_are_refused():
    space = PermutationSpace(XYZ)
    with pytest.raises(SpaceError, match="not an order"):
        space.rank((0, 1))
    with pytest.raises(ValueError, match="forward pair"):
        PermutationSpace(flat(["a", "b"], [(1, 0)]))


# ---------------------------------------------------- real frontends' output
ROOT = Path(__file__).resolve().parents[2]


def structural_brute(program: Program) -> int:
    """Orders of all n! that keep every dependency, every line's parent (the
    nearest earlier shallower line) and the relative order of siblings that
    may not pass each other (different blocks, or a never-moving line).
    Depends only on the lines' depths and blocks and on the dependencies."""
    lines, n = program.lines, len(program.lines)

    def parents(order):
        out, stack = {}, []
        for old in order:
            while stack and lines[stack[-1]].depth >= lines[old].depth:
                stack.pop()
            out[old] = stack[-1] if stack else None
            stack.append(old)
        return out

    parent = parents(range(n))
    fixed_pairs = [
        (a, b)
        for a in range(n)
        for b in range(a + 1, n)
        if parent[a] == parent[b] and (lines[a].block != lines[b].block or lines[a].block < 0)
    ]
    return sum(parents(order) == parent for order in brute(n, [*program.deps, *fixed_pairs]))


def fixture_units() -> list[Program]:
    from invar.frontends import lang_of, parse_units

    paths = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".py", ".s", ".java"))
    assert paths, "no fixtures found"
    return [u for p in paths for u in parse_units(p.read_text(), lang_of(str(p)), str(p))]


def test_counts_match_brute_force_on_every_small_fixture_unit():
    small = [u for u in fixture_units() if len(u.lines) <= 8]
    assert len(small) >= 20
    counted = {}  # the brute force once per shape: a thousand units have a few hundred
    for unit in small:
        shape = (tuple((line.depth, line.block) for line in unit.lines), unit.deps)
        if shape not in counted:
            counted[shape] = structural_brute(unit)
        assert PermutationSpace(unit).count() == counted[shape], unit.name


def test_counts_match_brute_force_on_bhive_blocks():
    from invar.errors import ParseError
    from invar.frontends.x86.hexblock import decode
    from tests.conftest import bhive_blocks

    rng = random.Random(8)
    pool = bhive_blocks()
    rng.shuffle(pool)
    checked = 0
    for hexcode in pool:
        if len(hexcode) > 2 * 8 * 6:  # at most ~8 instructions, decoded below
            continue
        try:
            program = decode(hexcode)
        except ParseError:
            continue
        if not 2 <= len(program.lines) <= 8:
            continue
        assert PermutationSpace(program).count() == len(brute(len(program.lines), program.deps)), hexcode
        checked += 1
        if checked == 150:
            break
    assert checked == 150


def random_nested(rng: random.Random, n: int) -> Program:
    """A program of ``n`` lines with random nesting: each line opens a body
    (the next lines one level deeper) or not, with random fixed clause lines
    and random dependencies inside each block."""
    spec: list[tuple[int, int]] = []  # (block, depth)
    blocks = [0]
    next_block = 1
    depth = 0
    for _ in range(n):
        roll = rng.random()
        if depth and roll < 0.2:  # close the current body
            depth -= 1
            blocks.pop()
        elif roll < 0.45 and depth < 3:  # this line opens a body
            spec.append((blocks[-1], depth))
            depth += 1
            blocks.append(next_block)
            next_block += 1
            continue
        if rng.random() < 0.1 and depth:  # a clause line that never moves
            spec.append((-1, depth))
            continue
        spec.append((blocks[-1], depth))
    lines = tuple(Line(f"l{i}", block=b, depth=d) for i, (b, d) in enumerate(spec))
    deps = [(i, j) for i in range(n) for j in range(i + 1, n) if spec[i][0] == spec[j][0] >= 0 and rng.random() < 0.25]
    return Program("toy", lines, (), deps=tuple(deps))


@pytest.mark.parametrize("seed", range(40))
def test_enumeration_is_lexicographic_over_orders_with_nested_blocks(seed):
    """``order`` tuples come out sorted, and rank/unrank follow the same order,
    also when a group's units hold groups of their own (the significance of an
    inner group then depends on where its unit lands)."""
    rng = random.Random(seed)
    program = random_nested(rng, rng.randint(4, 9))
    space = PermutationSpace(program)
    orders = [t.order for t in space.enumerate()]
    assert orders == sorted(set(orders))
    assert len(orders) == space.count()
    assert orders[0] == tuple(range(len(program.lines)))
    for index in rng.sample(range(len(orders)), min(len(orders), 25)):
        assert space.unrank(index).order == orders[index]
        assert space.rank(orders[index]) == index
    assert [t.order for t in space.enumerate(limit=3)] == orders[:3]


def test_sibling_bodies_enumerate_lexicographically():
    """Two movable statements with bodies of their own: after the outer swap,
    the body of the statement now first varies before the other's."""
    spec = [("def f():", -1, 0), ("if a:", 1, 1), ("b", 2, 2), ("c", 2, 2), ("if d:", 1, 1), ("e", 3, 2), ("g", 3, 2)]
    program = Program("toy", tuple(Line(t, block=b, depth=d) for t, b, d in spec), ())
    orders = [t.order for t in PermutationSpace(program).enumerate()]
    assert orders == sorted(orders) and len(orders) == 8
    assert orders[4:] == [(0, 4, 5, 6, 1, 2, 3), (0, 4, 5, 6, 1, 3, 2), (0, 4, 6, 5, 1, 2, 3), (0, 4, 6, 5, 1, 3, 2)]
