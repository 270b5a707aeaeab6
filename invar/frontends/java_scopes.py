"""Declarations and name resolution for one Java unit.

Reads the neutral description (:mod:`.java_syntax`) of a method and its
tokens; returns, for every identifier token of the unit that names a
parameter or local, the referent ``local:<unit>:<line>.<col>:<name>`` of its
declaration, with what dependencies need to know of each (array, unboxes,
``final``) and the locals that must keep their names.

Scopes are block scopes read off the tokens: a declaration reaches to the end
of its block, a ``for``/``catch``/resource variable to the end of its
statement, a lambda parameter to the end of its lambda, a method parameter to
the end of its method; a pattern variable (``o instanceof T x``) reaches
exactly where the Java Language Specification (6.3.1) says it is definitely
matched.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnsupportedError
from . import java_syntax as js

_LOOPS = (js.For, js.ForEach, js.While, js.Do)


@dataclass(slots=True)
class Scopes:
    """What :func:`resolve` finds in one unit."""

    #: identifier token -> referent, for declarations and resolved uses
    ref_of: dict[int, str]
    #: referent -> view (``param`` or ``local``)
    view_of: dict[str, str]
    #: the declaring tokens
    decl_toks: frozenset[int]
    #: referents of array type, of a type that may unbox, declared ``final``
    arrays: frozenset[str]
    unboxes: frozenset[str]
    finals: frozenset[str]
    #: identifier tokens that cannot name a variable (members, labels …)
    not_a_name: frozenset[int]
    #: referents that keep their names
    pinned: frozenset[str]
    #: referents of pattern variables that stay in scope after the statement
    #: that declares them (``if (!(o instanceof T x)) return;``), by statement
    escaping: dict[int, set[str]]


class Resolver:
    """Finds every declaration of a unit and resolves every identifier."""

    def __init__(self, ix: js.Tokens, method: js.Method, name: str, start: int, close: int) -> None:
        self.ix = ix
        self.method = method
        self.name = name
        self.start_tok, self.close_tok = start, close

    # ------------------------------------------------------------ resolve
    def resolve(self) -> Scopes:
        ix = self.ix
        decls: list[tuple[int, list[tuple[int, int]], str, str]] = []  # (token, ranges, name, view)
        arrays: set[int] = set()
        unboxes: set[int] = set()
        finals: set[int] = set()
        escaping: dict[int, set[int]] = {}
        for node, up in js.walk(self.method):
            if isinstance(node, js.Stmt):
                continue
            if not isinstance(node, js.Decl):
                continue
            parent = up[-1]
            k = node.tok
            if isinstance(parent, js.InstanceOf):
                raise UnsupportedError(f"pattern variable {node.name!r}", line=ix.line_of[k], col=ix.col_of[k] + 1)
            elif isinstance(parent, js.Method) and parent is self.method:
                ranges = [(k, self.close_tok)]
            elif isinstance(parent, js.ForEach) or (isinstance(parent, js.For) and any(node is d for d in parent.init)):
                # a for variable reaches the end of its loop, braced or not
                ranges = [(k, self.stmt_end(parent))]
            else:
                ranges = [(k, self.scope_end(k))]
            decls.append((k, ranges, node.name, node.view))
            if isinstance(parent, js.Method):
                # a parameter counts as final when its method is (the
                # method's own modifiers are read first, as they always were)
                final = ("final" in parent.modifiers) if parent.modifiers else node.final
            else:
                final = node.final
            if final:
                finals.add(k)
            if node.kind == "array":
                arrays.add(k)
            elif node.kind in ("boxed", "unknown"):
                unboxes.add(k)
        not_a_name = self._not_names()
        ref_of: dict[int, str] = {}
        view_of: dict[str, str] = {}
        by_name: dict[str, list[tuple[int, list[tuple[int, int]], str]]] = {}
        for k, ranges, name, view in decls:
            ref = f"local:{self.name}:{ix.line_of[k]}.{ix.col_of[k] + 1}:{name}"
            by_name.setdefault(name, []).append((k, ranges, ref))
            view_of[ref] = view
            ref_of[k] = ref
        decl_toks = frozenset(ref_of)
        for cands in by_name.values():
            cands.sort(key=lambda c: c[0])
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k] or k in ref_of or k in not_a_name:
                continue
            cands = by_name.get(ix.values[k])
            if not cands:
                continue
            best = None
            for d, ranges, ref in cands:
                if d <= k and any(lo <= k <= hi for lo, hi in ranges):
                    best = ref
            if best is not None:
                ref_of[k] = best
        return Scopes(
            ref_of=ref_of, view_of=view_of, decl_toks=decl_toks,
            arrays=frozenset(ref_of[k] for k in arrays), unboxes=frozenset(ref_of[k] for k in unboxes),
            finals=frozenset(ref_of[k] for k in finals), not_a_name=frozenset(not_a_name),
            pinned=self._captured_by_classes(ref_of, decl_toks),
            escaping={s: {ref_of[k] for k in ks} for s, ks in escaping.items()},
        )

    # ------------------------------------------------------------- scopes
    def scope_end(self, k: int) -> int:
        """Last token a declaration at token ``k`` reaches."""
        ix = self.ix
        nxt = ix.values[k + 1] if k + 1 < len(ix) else ""
        if nxt == "->":
            return self.lambda_end(k + 1)
        o = ix.enclosing[k]
        if o >= 0 and ix.values[o] == "(":
            c = ix.match[o]
            after = ix.values[c + 1] if c + 1 < len(ix) else ""
            if after == "->":
                return self.lambda_end(c + 1)
            if after == "{":
                return ix.match[c + 1]
            j = c + 1
            while j < self.close_tok and ix.values[j] != ";":
                j = ix.match.get(j, j) + 1 if ix.values[j] in ("(", "[", "{") else j + 1
            return j
        return ix.match[o] if o >= 0 and ix.values[o] == "{" else self.close_tok

    def stmt_end(self, s: js.Stmt) -> int:
        """The last token of statement ``s``: an unbraced body ends where its
        own last statement ends, an ``if``/``else`` chain at its last branch."""
        ix = self.ix
        if isinstance(s, js.If):
            return self.stmt_end(s.other if s.other is not None else s.then)
        if isinstance(s, (js.For, js.ForEach, js.While)):
            return self.stmt_end(s.body)
        k = s.tok
        if isinstance(s, js.Do):
            k = self.stmt_end(s.body) + 1  # while ( … ) ;
            return ix.match[k + 1] + 1
        braced = isinstance(s, (js.Block, js.Switch, js.Sync, js.Try, js.LocalClass))
        while k < self.close_tok:
            v = ix.values[k]
            if v == "{" and braced:
                k = ix.match[k]
                if not (isinstance(s, js.Try) and ix.values[k + 1] in ("catch", "finally")):
                    return k
            elif v in ("(", "[", "{"):
                k = ix.match.get(k, k)
            elif v == ";" and not braced:
                return k
            k += 1
        return self.close_tok

    def lambda_end(self, arrow: int) -> int:
        ix = self.ix
        j = arrow + 1
        if j < len(ix) and ix.values[j] == "{":
            return ix.match[j]
        while j < self.close_tok:
            v = ix.values[j]
            if v in ("(", "[", "{"):
                j = ix.match.get(j, j) + 1
                continue
            if v in (")", "]", "}", ";", ","):
                return j
            j += 1
        return j

    # ---------------------------------------------------------- not names
    def _not_names(self) -> set[int]:
        """Identifier tokens that cannot name a variable: members after ``.``
        or ``::``, method names before ``(``, labels and ``break``/``continue``
        targets (a label may share a local's name), annotation elements."""
        ix = self.ix
        out = set()
        for k in range(self.start_tok, self.close_tok + 1):
            if not ix.identifier[k]:
                continue
            before = ix.values[k - 1]
            if before in (".", "::", "break", "continue") or ix.values[k + 1] == "(":
                out.add(k)
            elif before in ("(", ",") and ix.values[k + 1] == "=" and self._in_annotation(k):
                out.add(k)  # an annotation element: @SuppressWarnings(value = "x")
        for node, _ in js.walk(self.method):
            if isinstance(node, js.Stmt):
                out.update(node.labels)
        return out

    def _in_annotation(self, k: int) -> bool:
        """Whether token ``k`` stands directly inside an annotation's parentheses."""
        ix = self.ix
        o = ix.enclosing[k]
        if o < 1 or ix.values[o] != "(":
            return False
        j = o - 1
        while j > 1 and ix.identifier[j] and ix.values[j - 1] == ".":
            j -= 2
        return ix.identifier[j] and ix.values[j - 1] == "@"

    def _captured_by_classes(self, ref_of: dict[int, str], decl_toks: frozenset[int]) -> frozenset[str]:
        """Locals declared outside an anonymous or local class body and named
        inside it: there a simple name may mean a member the class inherits
        (which invar cannot see), so these keep their names."""
        ix = self.ix
        bodies = []
        for node, _ in js.walk(self.method):
            body = node.body if isinstance(node, (js.New, js.LocalClass)) else None
            if body is not None and body.tok >= 0:
                bodies.append((body.tok, ix.match.get(body.tok, self.close_tok)))
        pinned = set()
        decl_of = {ref: k for k, ref in ref_of.items() if k in decl_toks}
        for k, ref in ref_of.items():
            d = decl_of[ref]
            if any(o < k < c and not o < d < c for o, c in bodies):
                pinned.add(ref)
        return frozenset(pinned)


__all__ = ["Scopes", "Resolver"]
