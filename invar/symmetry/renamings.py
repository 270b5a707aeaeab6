"""Exact counting, enumeration and uniform sampling of renamings.

A renaming maps each renamable referent of a program to a target name,
one-to-one. Which targets a referent may take is decided by its frontend
(views kept, encodability, capture avoidance) and handed over as an *allowed*
set per referent; pinned referents are simply absent and their names are
excluded from every allowed set. What remains is a pure combinatorial object:
the injective maps ``referent[i] -> allowed[i]``.

Counting such maps is a permanent in general, but the allowed sets come in a
handful of shapes. Targets that belong to exactly the same allowed sets are
interchangeable; we call such a class an *atom*. The number of ways to finish a
partial map then depends only on the next referent's index and on how many
targets of each atom are taken, which gives a tiny memoised table
(:meth:`RenamingSpace._completions`). The table counts exactly, unranks in
lexicographic order, and so samples exactly uniformly: draw an integer below
``count()`` and unrank it.

Enumeration order: lexicographic over the tuple of targets, referents taken in
order of first appearance and each referent's targets in the order its
frontend lists them (for x86: the encoding order ``a c d b sp bp si di r8 … r15``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import islice
from typing import Callable, Iterator, Mapping, Sequence

from ..errors import SpaceError
from ..program import Program, Token

#: rewrites one token for a target referent: ``spell(token, target) -> new text``
Speller = Callable[[Token, str], str]


@dataclass(frozen=True, slots=True)
class Renaming:
    """One renaming: ``mapping[k] = (referent, target)`` in referent order."""

    #: (referent, target) pairs for every renamable referent, in first-appearance order
    mapping: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, str]:
        return dict(self.mapping)

    def inverse(self) -> dict[str, str]:
        return {t: r for r, t in self.mapping}

    @property
    def is_identity(self) -> bool:
        return all(r == t for r, t in self.mapping)


class RenamingSpace:
    """All renamings of one program; see the module docstring.

    ``referents``: the renamable referents, in enumeration order.
    ``allowed``: for each referent, its admissible targets in enumeration order.
    ``spell``: how a token is written once its referent is renamed.
    """

    def __init__(
        self,
        program: Program,
        referents: Sequence[str],
        allowed: Sequence[Sequence[str]],
        spell: Speller,
    ) -> None:
        if len(referents) != len(allowed):
            raise ValueError("one allowed set per referent")
        self.program = program
        self.referents = tuple(referents)
        deduped: dict[int, tuple[str, ...]] = {}  # frontends pass one list for many referents
        self.allowed = tuple(
            deduped[id(a)] if id(a) in deduped else deduped.setdefault(id(a), tuple(dict.fromkeys(a))) for a in allowed
        )
        self.spell = spell
        targets: dict[str, None] = {}
        for a in dict.fromkeys(self.allowed):  # each distinct set once, in order
            targets.update(dict.fromkeys(a))
        self.targets = tuple(targets)
        # atoms: targets grouped by the set of referents that may take them
        # referents that share one allowed set share its signature work: one
        # pass over the distinct sets, not one per referent (n referents over
        # one pool would otherwise build n growing sets per target)
        by_set: dict[tuple[str, ...], list[int]] = {}
        for i, a in enumerate(self.allowed):
            by_set.setdefault(a, []).append(i)
        members: dict[str, list[int]] = {t: [] for t in self.targets}
        for a, refs in by_set.items():
            for t in a:
                members[t].extend(refs)
        signature: dict[str, frozenset[int]] = {t: frozenset(m) for t, m in members.items()}
        atoms: dict[frozenset[int], list[str]] = {}
        for t in self.targets:
            atoms.setdefault(signature[t], []).append(t)
        self._atom_sizes = tuple(len(v) for v in atoms.values())
        atom_index = {sig: k for k, sig in enumerate(atoms)}
        self._atom_of = {t: atom_index[signature[t]] for t in self.targets}
        # for referent i: the atoms it may draw from
        atoms_of_set = {a: tuple(sorted({self._atom_of[t] for t in a})) for a in by_set}
        self._atoms_for = tuple(atoms_of_set[a] for a in self.allowed)
        self._ways: list[dict[tuple[int, ...], int]] | None = None
        # which tokens each referent owns, for apply()
        self._tokens_of: dict[str, list[int]] = {}
        for k, tok in enumerate(program.tokens):
            if tok.referent is not None:
                self._tokens_of.setdefault(tok.referent, []).append(k)

    # ---------------------------------------------------------------- counting
    def _table(self) -> list[dict[tuple[int, ...], int]]:
        """``table[i][used]``: ways to map referents ``i..`` given ``used[a]``
        targets of atom ``a`` taken, for every reachable ``used``. Built level
        by level, forward then backward, so no recursion over referents."""
        if self._ways is None:
            n, sizes = len(self.referents), self._atom_sizes
            levels: list[set[tuple[int, ...]]] = [{(0,) * len(sizes)}]
            for i in range(n):
                nxt: set[tuple[int, ...]] = set()
                for used in levels[-1]:
                    for a in self._atoms_for[i]:
                        if used[a] < sizes[a]:
                            nxt.add(used[:a] + (used[a] + 1,) + used[a + 1 :])
                levels.append(nxt)
            ways: list[dict[tuple[int, ...], int]] = [{} for _ in range(n + 1)]
            ways[n] = dict.fromkeys(levels[n], 1)
            for i in range(n - 1, -1, -1):
                below, here = ways[i + 1], ways[i]
                for used in levels[i]:
                    total = 0
                    for a in self._atoms_for[i]:
                        free = sizes[a] - used[a]
                        if free > 0:
                            total += free * below[used[:a] + (used[a] + 1,) + used[a + 1 :]]
                    here[used] = total
            self._ways = ways
        return self._ways

    def _completions(self, i: int, used: tuple[int, ...]) -> int:
        """Ways to map referents i.. given ``used[a]`` targets of atom a taken."""
        return self._table()[i].get(used, 0)

    def count(self) -> int:
        """The exact number of renamings (identity included when admissible)."""
        return self._completions(0, (0,) * len(self._atom_sizes))

    def __len__(self) -> int:  # pragma: no cover - may overflow ssize_t
        return self.count()

    # ---------------------------------------------------- ranking / unranking
    def unrank(self, index: int) -> Renaming:
        """The renaming at position ``index`` of the enumeration order."""
        total = self.count()
        if not 0 <= index < total:
            raise SpaceError(f"renaming index {index} out of range 0..{total - 1}")
        used = [0] * len(self._atom_sizes)
        taken: set[str] = set()
        mapping = []
        for i, ref in enumerate(self.referents):
            for t in self.allowed[i]:
                if t in taken:
                    continue
                a = self._atom_of[t]
                used[a] += 1
                ways = self._completions(i + 1, tuple(used))
                if index < ways:
                    taken.add(t)
                    mapping.append((ref, t))
                    break
                index -= ways
                used[a] -= 1
            else:  # pragma: no cover - count() and the loop disagree
                raise AssertionError("unrank ran past the end")
        return Renaming(tuple(mapping))

    def rank(self, renaming: Renaming | Mapping[str, str]) -> int:
        """Position of ``renaming`` in the enumeration order.

        The targets before the chosen one that are still free are counted per
        atom (every target of an atom leaves the same number of completions),
        so a referent costs one table lookup per atom, not one per target."""
        mapping = renaming.as_dict() if isinstance(renaming, Renaming) else dict(renaming)
        used = [0] * len(self._atom_sizes)
        taken: list[list[str]] = [[] for _ in self._atom_sizes]
        taken_set: set[str] = set()
        index = 0
        for i, ref in enumerate(self.referents):
            target = mapping.get(ref, ref)
            allowed = self.allowed[i]
            pos_of, prefix = self._layout(allowed)
            p = pos_of.get(target)
            if p is None or target in taken_set:
                raise SpaceError(f"{ref} -> {target} is not an admissible renaming")
            for a in self._atoms_for[i]:
                before = prefix[a][p] - sum(1 for t in taken[a] if pos_of.get(t, p) < p)
                if before:
                    used[a] += 1
                    index += before * self._completions(i + 1, tuple(used))
                    used[a] -= 1
            a = self._atom_of[target]
            taken[a].append(target)
            taken_set.add(target)
            used[a] += 1
        return index

    def _layout(self, allowed: tuple[str, ...]) -> tuple[dict[str, int], dict[int, list[int]]]:
        """(position of each target in ``allowed``, per atom the number of its
        targets before each position), cached per distinct allowed set."""
        cache = self.__dict__.setdefault("_layouts", {})
        got = cache.get(id(allowed))
        if got is None:
            pos_of = {t: k for k, t in enumerate(allowed)}
            prefix: dict[int, list[int]] = {}
            for a in {self._atom_of[t] for t in allowed}:
                counts, n = [0], 0
                for t in allowed:
                    n += self._atom_of[t] == a
                    counts.append(n)
                prefix[a] = counts
            got = cache[id(allowed)] = (pos_of, prefix)
        return got

    def __contains__(self, renaming: Renaming | Mapping[str, str]) -> bool:
        try:
            self.rank(renaming)
        except SpaceError:
            return False
        return True

    # ------------------------------------------------- enumerate and sample
    def enumerate(self, limit: int | None = None) -> Iterator[Renaming]:
        """Renamings in lexicographic order (see the module docstring); a
        depth-first walk with an explicit stack, skipping every choice that
        cannot be completed."""
        n = len(self.referents)
        if limit is not None and limit <= 0:
            return
        if self.count() == 0:
            return
        if n == 0:
            yield Renaming(())
            return
        produced = 0
        mapping: list[tuple[str, str]] = []
        taken: set[str] = set()
        used = [0] * len(self._atom_sizes)
        # one frame per referent being decided: the index of its next candidate target
        frames = [0]
        while frames:
            i = len(frames) - 1
            if i == n:
                yield Renaming(tuple(mapping))
                produced += 1
                if limit is not None and produced >= limit:
                    return
                frames.pop()
                self._undo(mapping, taken, used)
                continue
            options = self.allowed[i]
            k = frames[-1]
            while k < len(options):
                t = options[k]
                k += 1
                if t in taken:
                    continue
                a = self._atom_of[t]
                used[a] += 1
                if self._completions(i + 1, tuple(used)):
                    taken.add(t)
                    mapping.append((self.referents[i], t))
                    break
                used[a] -= 1
            else:  # no candidate left: back up
                frames.pop()
                if frames:
                    self._undo(mapping, taken, used)
                continue
            frames[-1] = k
            frames.append(0)

    def _undo(self, mapping: list[tuple[str, str]], taken: set[str], used: list[int]) -> None:
        _ref, t = mapping.pop()
        taken.discard(t)
        used[self._atom_of[t]] -= 1

    def sample(self, n: int, rng: random.Random | int | None = None) -> list[Renaming]:
        """``n`` renamings drawn independently and exactly uniformly."""
        return list(islice(self.samples(rng), n))

    def samples(self, rng: random.Random | int | None = None) -> Iterator[Renaming]:
        """An endless stream of independent, exactly uniform renamings, in
        constant memory (what ``sample`` and ``--sample N`` draw from)."""
        rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        total = self.count()
        if total == 0:
            raise SpaceError("the program has no admissible renaming")
        if self.referents and len(self._atom_sizes) == 1 and all(self.allowed):
            # one atom: every referent may take every target, so a uniform
            # injective sequence is a uniform renaming
            pool, refs = self.allowed[0], self.referents
            while True:
                yield Renaming(tuple(zip(refs, rng.sample(pool, len(refs)))))
        while True:
            yield self.unrank(rng.randrange(total))

    # --------------------------------------------------------- apply / undo
    def apply(self, program: Program | None, renaming: Renaming) -> Program:
        """The program with every token of a renamed referent respelled."""
        program = self.program if program is None else program
        tokens_of = self._tokens_of if program is self.program else None
        new_texts: dict[int, str] = {}
        for ref, target in renaming.mapping:
            if ref == target:
                continue
            ks = (
                tokens_of.get(ref, ())
                if tokens_of is not None
                else [k for k, t in enumerate(program.tokens) if t.referent == ref]
            )
            for k in ks:
                new_texts[k] = self.spell(program.tokens[k], target)
        renamed = program.with_token_texts(new_texts)
        # referents follow their tokens
        if new_texts:
            from dataclasses import replace

            mapping = renaming.as_dict()
            tokens = tuple(
                replace(t, referent=mapping.get(t.referent, t.referent)) if t.referent in mapping else t
                for t in renamed.tokens
            )
            renamed = replace(renamed, tokens=tokens)
        return renamed

    def render(self, renaming: Renaming) -> str:
        """The renamed program's text, without building its IR: the fast path
        for producing many variants (see bench/bench_renamings.py)."""
        template = self._template()
        mapping = renaming.as_dict()
        spell = self._spell_cached
        out = []
        for piece in template:
            if isinstance(piece, str):
                out.append(piece)
            else:
                tok = piece
                target = mapping.get(tok.referent, tok.referent)
                out.append(tok.text if target == tok.referent else spell(tok.view, tok, target))
        return "".join(out)

    def _template(self) -> list:
        """The program text as literal strings and renamable tokens, in order."""
        if getattr(self, "_template_cache", None) is None:
            renamable = set(self.referents)
            program = self.program
            pieces: list = [program.prefix]
            for li, line in enumerate(program.lines):
                if li:
                    pieces.append(program.separator)
                pos = 0
                for k in program._line_token_indices(li):
                    tok = program.tokens[k]
                    if tok.referent in renamable:
                        pieces.append(line.text[pos : tok.start])
                        pieces.append(tok)
                        pos = tok.end
                pieces.append(line.text[pos:])
            pieces.append(program.suffix)
            merged: list = []
            for p in pieces:
                if isinstance(p, str) and merged and isinstance(merged[-1], str):
                    merged[-1] += p
                elif p != "":
                    merged.append(p)
            self._template_cache = merged
            self._spellings: dict[tuple[str, str], str] = {}
        return self._template_cache

    def _spell_cached(self, view: str, token: Token, target: str) -> str:
        key = (view, target) if self.spell_by_view else (token.text, target)
        got = self._spellings.get(key)
        if got is None:
            got = self._spellings[key] = self.spell(token, target)
        return got

    #: whether ``spell`` depends only on the token's view and the target (true
    #: for registers and names); frontends whose spelling needs the token's own
    #: text set it to False
    spell_by_view = True

    @staticmethod
    def undo(prediction, renaming: Renaming):
        """Map a prediction made on the renamed program back to the original's
        names: strings naming a target become the referent they came from;
        containers are mapped element-wise; anything else (a number) is kept."""
        inverse = renaming.inverse()

        def back(x):
            if isinstance(x, str):
                return inverse.get(x, x)
            if isinstance(x, (list, tuple)):
                return type(x)(back(v) for v in x)
            if isinstance(x, dict):
                return {back(k): back(v) for k, v in x.items()}
            return x

        return back(prediction)
