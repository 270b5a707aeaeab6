"""Independent decision procedures for the trace checker's cross-checks.

Nothing here shares checking code with ``invar.frontends.ltl.check``; only the
parsed AST and the trace dataclass are common.

* :func:`oracle_holds` is the Lichtenstein–Pnueli tableau method over an
  explicit Kripke structure: the structure's states are (trace position,
  valuation) pairs, the formula is reduced to ``! & X U``, and an *atom* is a
  consistent truth assignment to the closure, determined by the valuation and
  a guess for every X-formula (plus ``X u`` for every until ``u``). A word of
  the trace satisfying ``!phi`` exists iff a self-fulfilling nontrivial SCC of
  the atom graph is reachable from an initial atom containing ``!phi``. It is
  vectorised with numpy and scipy, and explodes exponentially in the number
  of X/U subformulas and APs, so it is for small cases only.
* :func:`evaluate_lasso` evaluates a formula over one concrete lasso word by
  least and greatest fixpoints over its positions.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from invar.frontends.ltl.formula import Formula
from invar.frontends.ltl.trace import Trace


# --------------------------------------------------------- core reduction
def _core(f: Formula) -> tuple:
    """Rewrite to ('ap',n) ('true',) ('not',x) ('and',x,y) ('X',x) ('U',x,y)."""
    o = f.op
    if o == "ap":
        return ("ap", f.name)
    if o == "1":
        return ("true",)
    if o == "0":
        return ("not", ("true",))
    if o == "!":
        return ("not", _core(f.args[0]))
    if o == "X":
        return ("X", _core(f.args[0]))
    if o == "F":
        return ("U", ("true",), _core(f.args[0]))
    if o == "G":
        return ("not", ("U", ("true",), ("not", _core(f.args[0]))))
    x, y = (_core(a) for a in f.args)

    def Or(p, q):
        return ("not", ("and", ("not", p), ("not", q)))

    def Not(p):
        return ("not", p)

    if o == "&":
        return ("and", x, y)
    if o == "|":
        return Or(x, y)
    if o == "->":
        return Or(Not(x), y)
    if o == "<->":
        return ("and", Or(Not(x), y), Or(Not(y), x))
    if o == "xor":
        return Not(("and", Or(Not(x), y), Or(Not(y), x)))
    if o == "U":
        return ("U", x, y)
    if o == "R":  # x R y = !(!x U !y)
        return Not(("U", Not(x), Not(y)))
    if o == "W":  # x W y = (x U y) | G x
        return Or(("U", x, y), Not(("U", ("true",), Not(x))))
    if o == "M":  # x M y = y U (x & y)
        return ("U", y, ("and", x, y))
    raise ValueError(o)


def _closure(root: tuple) -> list[tuple]:
    """Distinct subformulas, children before parents."""
    out: dict[tuple, None] = {}

    def visit(n: tuple) -> None:
        if n in out:
            return
        for c in n[1:]:
            if isinstance(c, tuple):
                visit(c)
        out[n] = None

    visit(root)
    return list(out)


def _step_value(step: Formula, val: dict[str, bool]) -> bool:
    o = step.op
    if o == "ap":
        return val[step.name]
    if o in ("1", "0"):
        return o == "1"
    if o == "!":
        return not _step_value(step.args[0], val)
    x, y = (_step_value(a, val) for a in step.args)
    return {"&": x and y, "|": x or y, "->": (not x) or y, "<->": x == y, "xor": x != y}[o]


def oracle_holds(formula: Formula, trace: Trace) -> bool:
    """Every word of ``trace`` satisfies ``formula`` (Lichtenstein–Pnueli)."""
    root = ("not", _core(formula))
    closure = _closure(root)
    pos_of = {n: k for k, n in enumerate(closure)}
    aps = sorted({n[1] for n in closure if n[0] == "ap"} | set(trace.aps()))
    # elementary formulas: X psi (target psi) and X u for each until u (target u)
    elem_targets = [pos_of[n[1]] for n in closure if n[0] == "X"] + [pos_of[n] for n in closure if n[0] == "U"]
    elem_of_x = {pos_of[n]: j for j, n in enumerate(n for n in closure if n[0] == "X")}
    n_x = len(elem_of_x)
    elem_of_u = {pos_of[n]: n_x + j for j, n in enumerate(n for n in closure if n[0] == "U")}
    k, e = len(aps), len(elem_targets)
    combos = 1 << (k + e)
    idx = np.arange(combos, dtype=np.int64)
    ap_val = {a: (idx >> j) & 1 == 1 for j, a in enumerate(aps)}
    elem_val = [(idx >> (k + j)) & 1 == 1 for j in range(e)]
    truth: list[np.ndarray] = []
    for n in closure:
        tag = n[0]
        if tag == "ap":
            v = ap_val[n[1]]
        elif tag == "true":
            v = np.ones(combos, dtype=bool)
        elif tag == "not":
            v = ~truth[pos_of[n[1]]]
        elif tag == "and":
            v = truth[pos_of[n[1]]] & truth[pos_of[n[2]]]
        elif tag == "X":
            v = elem_val[elem_of_x[pos_of[n]]]
        else:  # U: y or (x and X u)
            v = truth[pos_of[n[2]]] | (truth[pos_of[n[1]]] & elem_val[elem_of_u[pos_of[n]]])
        truth.append(v)
    weights = (1 << np.arange(e, dtype=np.int64)) if e else np.zeros(0, dtype=np.int64)
    req = (idx >> k) & ((1 << e) - 1)  # the guesses about the next atom
    sig = np.zeros(combos, dtype=np.int64)  # what this atom offers its predecessor
    for j, t in enumerate(elem_targets):
        sig |= truth[t].astype(np.int64) << j
    del weights
    # valuations allowed at each position
    steps = trace.steps
    n_pos = len(steps)
    valid = []
    for step in steps:
        ok = np.zeros(1 << k, dtype=bool)
        for m in range(1 << k):
            ok[m] = _step_value(step, {a: bool(m >> j & 1) for j, a in enumerate(aps)})
        valid.append(ok[idx & ((1 << k) - 1)])
    succ = [p + 1 if p + 1 < n_pos else len(trace.prefix) for p in range(n_pos)]
    # node id = p * combos + combo; edges p -> succ(p) where req(A) == sig(B)
    rows, cols = [], []
    for p in range(n_pos):
        q = succ[p]
        src = np.nonzero(valid[p])[0]
        dst = np.nonzero(valid[q])[0]
        if len(src) == 0 or len(dst) == 0:
            continue
        order = np.argsort(sig[dst], kind="stable")
        dst_sorted = dst[order]
        sig_sorted = sig[dst_sorted]
        lo = np.searchsorted(sig_sorted, req[src], side="left")
        hi = np.searchsorted(sig_sorted, req[src], side="right")
        counts = hi - lo
        rows.append(np.repeat(src + p * combos, counts))
        starts = np.repeat(lo, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        cols.append(dst_sorted[starts + offsets] + q * combos)
    n_nodes = n_pos * combos + 1  # plus a virtual source
    source = n_nodes - 1
    init = np.nonzero(valid[0] & truth[pos_of[root]])[0]
    rows.append(np.full(len(init), source, dtype=np.int64))
    cols.append(init.astype(np.int64))
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    graph = csr_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n_nodes, n_nodes))
    reach = np.zeros(n_nodes, dtype=bool)
    reach[breadth_first_order(graph, source, directed=True, return_predecessors=False)] = True
    _, labels = connected_components(graph, directed=True, connection="strong")
    n_comp = labels.max() + 1
    sizes = np.bincount(labels, minlength=n_comp)
    selfloop = np.zeros(n_comp, dtype=bool)
    loops = r == c
    selfloop[labels[r[loops]]] = True
    nontrivial = (sizes > 1) | selfloop
    comp_reach = np.zeros(n_comp, dtype=bool)
    comp_reach[labels[reach]] = True
    good = nontrivial & comp_reach
    # exclude invalid atoms (never reached anyway, but keep the fulfilment sums clean)
    node_valid = np.concatenate([valid[p] for p in range(n_pos)] + [np.array([False])])
    for n in closure:
        if n[0] != "U":
            continue
        u_true = np.tile(truth[pos_of[n]], n_pos)
        b_true = np.tile(truth[pos_of[n[2]]], n_pos)
        u_true = np.concatenate([u_true, [False]]) & node_valid & reach
        b_true = np.concatenate([b_true, [False]]) & node_valid & reach
        has_u = np.bincount(labels, weights=u_true, minlength=n_comp) > 0
        has_b = np.bincount(labels, weights=b_true, minlength=n_comp) > 0
        good &= ~has_u | has_b
    return not bool(good.any())


# ------------------------------------------------------- concrete lassos
def evaluate_lasso(formula: Formula, words: list[frozenset[str]], loop_start: int) -> bool:
    """Truth of ``formula`` at position 0 of the word ``words[:loop_start]
    (words[loop_start:])^omega`` (each word the set of true APs)."""
    n = len(words)
    succ = [i + 1 if i + 1 < n else loop_start for i in range(n)]

    def sat(f: Formula) -> list[bool]:
        o = f.op
        if o == "ap":
            return [f.name in w for w in words]
        if o in ("1", "0"):
            return [o == "1"] * n
        if o == "!":
            return [not v for v in sat(f.args[0])]
        if o == "X":
            s = sat(f.args[0])
            return [s[succ[i]] for i in range(n)]
        if o == "F":
            return sat(Formula("U", (Formula("1"), f.args[0])))
        if o == "G":
            return sat(Formula("R", (Formula("0"), f.args[0])))
        x, y = sat(f.args[0]), sat(f.args[1])
        if o in ("&", "|", "->", "<->", "xor"):
            fn = {
                "&": lambda a, b: a and b,
                "|": lambda a, b: a or b,
                "->": lambda a, b: (not a) or b,
                "<->": lambda a, b: a == b,
                "xor": lambda a, b: a != b,
            }[o]
            return [fn(a, b) for a, b in zip(x, y)]
        if o in ("U", "M"):
            # least fixpoint: U: y | (x & X.), M: y & (x | X.)
            cur = [False] * n
            for _ in range(n + 1):
                if o == "U":
                    cur = [y[i] or (x[i] and cur[succ[i]]) for i in range(n)]
                else:
                    cur = [y[i] and (x[i] or cur[succ[i]]) for i in range(n)]
            return cur
        if o in ("R", "W"):
            # greatest fixpoint: R: y & (x | X.), W: y | (x & X.)
            cur = [True] * n
            for _ in range(n + 1):
                if o == "R":
                    cur = [y[i] and (x[i] or cur[succ[i]]) for i in range(n)]
                else:
                    cur = [y[i] or (x[i] and cur[succ[i]]) for i in range(n)]
            return cur
        raise ValueError(o)

    return sat(formula)[0]
