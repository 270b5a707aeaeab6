"""Java's restricted identifiers as renaming targets (issue 35, item 6;
docs/semantics.md, "What is renamable").

JLS 3.8 and 3.9 (Java 17): ``var``, ``yield``, ``record``, ``sealed`` and
``permits`` are restricted identifiers. None may be a type's name
(``TypeIdentifier``), and ``yield`` may not be a method's called by its simple
name (``UnqualifiedMethodIdentifier``); anywhere else, a local variable's or a
parameter's name (``VariableDeclaratorId``, a lambda's or a pattern's) among
them, each is an ``Identifier`` like any other. invar renames only locals and
parameters, so every one of them is a target wherever it is declared and
used; ``_``, the keywords and the literals never are.

Checked by ``javac``: every local and parameter of every declaration form
(plain, ``var``, ``for``, enhanced ``for``, ``catch``, resource, lambda
parameters of every shape, pattern) with uses in every position a name can
take (statement starts, compound assignment, ``++``, array stores, member
access, switch rules and ``yield``, casts, parentheses) is renamed to each
restricted identifier: every variant compiles and its driver prints what the
original prints, and invar reads each variant back with the same
dependencies and renames it back to the original. The refused words are
refused by ``javac`` too, and so are the restricted identifiers as type and
method names, which no renaming touches.
"""

from __future__ import annotations

import pytest

from invar.errors import UsageError
from invar.frontends.java import RESTRICTED_IDENTIFIERS, parse_units, renaming_space
from invar.frontends.locals import name_of
from invar.symmetry.renamings import Renaming

from .java_harness import compile_all, compile_batches, error_lines, rename_class, run_all, splice

WORDS = ["var", "yield", "record", "sealed", "permits"]

#: a class whose methods declare locals and parameters in every form and use
#: them in every position; ``main`` prints what each method returns
SOURCE = """import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.IntUnaryOperator;

public class R {
    int f;

    static int plain(int a, int[] arr) {
        int x = a + 1, y = 2;
        x = x + y;
        x += 3;
        x++;
        ++y;
        y--;
        int[] buf = arr.clone();
        buf[0] = x;
        buf[0]++;
        long w = (long) x * y;
        int t = (x) > 3 ? x : y;
        return (int) w + t + buf[0] + buf.length;
    }

    static int loops(List<Integer> xs) {
        int total = 0;
        for (int i = 0, j = 1; i < xs.size(); i++, j += 2) {
            total += xs.get(i) * j;
        }
        for (int n : xs) {
            total -= n;
        }
        for (var m : xs) {
            total += m * m;
        }
        var k = 0;
        while (k < 3) {
            k++;
        }
        return total + k;
    }

    static String objects(Object o, R r) {
        StringBuilder sb = new StringBuilder();
        sb.append("a");
        R q = r;
        q.f = 4;
        q.f++;
        if (o instanceof String s && !s.isEmpty()) {
            sb.append(s.length());
        }
        if (!(o instanceof Integer num)) {
            return sb.toString() + q.f;
        }
        return sb.toString() + num + q.f;
    }

    static int lambdas(List<Integer> xs) {
        int base = 10;
        IntUnaryOperator inc = v -> v + base;
        BiFunction<Integer, Integer, Integer> plus = (p, q) -> p + q;
        BiFunction<Integer, Integer, Integer> mul = (Integer u, Integer z) -> u * z;
        BiFunction<Integer, Integer, Integer> sub = (var c, var d) -> c - d;
        List<Integer> out = new ArrayList<>();
        xs.forEach(e -> out.add(inc.applyAsInt(e)));
        return plus.apply(out.size(), base) + mul.apply(2, 3) + sub.apply(9, 4) + out.get(0);
    }

    static int switches(int a) {
        int acc = a;
        int got = switch (a) {
            case 1 -> acc;
            case 2 -> { acc = acc * 3; yield acc + 1; }
            case 3 -> { int inner = acc - 1; yield inner; }
            default -> -acc;
        };
        int old = switch (a % 2) {
            case 0: acc++; yield acc;
            default: yield (acc);
        };
        switch (a) {
            case 1 -> acc--;
            case 2 -> acc = 5;
            default -> { acc += got; }
        }
        return got + old + acc;
    }

    static int resources(String text) {
        int count = 0;
        try (var reader = new java.io.StringReader(text)) {
            int ch = reader.read();
            while (ch >= 0) {
                count++;
                ch = reader.read();
            }
        } catch (java.io.IOException ex) {
            count = -1;
        }
        try {
            Object nothing = null;
            count += nothing.hashCode();
        } catch (NullPointerException npe) {
            count += npe.getClass().getSimpleName().length();
        }
        return count;
    }

    static int records(int a) {
        record Pair(int left, int right) {}
        var v = new Pair(a, 2);
        int sum = v.left() + v.right();
        Pair other = new Pair(sum, a);
        return other.left() * other.right();
    }

    public static void main(String[] args) {
        System.out.println("#case plain");
        System.out.println(plain(3, new int[] {1, 2}));
        System.out.println("#case loops");
        System.out.println(loops(List.of(1, 2, 3)));
        System.out.println("#case objects");
        System.out.println(objects("hey", new R()) + " " + objects(7, new R()));
        System.out.println("#case lambdas");
        System.out.println(lambdas(List.of(4, 5)));
        System.out.println("#case switches");
        for (int a = 0; a < 5; a++) {
            System.out.println(switches(a));
        }
        System.out.println("#case resources");
        System.out.println(resources("abc"));
        System.out.println("#case records");
        System.out.println(records(6));
    }
}
"""


def test_the_words_are_the_jls_restricted_identifiers():
    assert set(WORDS) == RESTRICTED_IDENTIFIERS


def retarget(unit, changes: dict[str, str]):
    """``unit`` with each referent of ``changes`` renamed to its word, every
    other keeping its name: a renaming the space must hold."""
    names = [name_of(r) for r in unit.referents]
    space = renaming_space(unit, pool=[*dict.fromkeys(changes.values()), *names])
    renaming = Renaming(tuple((r, changes.get(r, name_of(r))) for r in space.referents))
    assert renaming in space, (unit.name, changes)
    return space.apply(None, renaming)


def variants() -> dict[str, tuple[str, dict]]:
    """Variant classes: in ``R_i_k`` every method's ``k``-th referent is
    renamed to word ``i`` and its ``k + 8``-th to word ``i + 1``, so that every
    referent takes every word once."""
    units = list(parse_units(SOURCE, "R.java"))
    lines = SOURCE.split("\n")
    out = {}
    for i in range(len(WORDS)):
        for k in range(8):
            replacements, changes = [], {}
            for unit in units:
                refs = unit.referents
                change = {refs[j]: WORDS[(i + j // 8) % len(WORDS)] for j in (k, k + 8) if j < len(refs)}
                changes[unit.name] = change
                replacements.append((unit, retarget(unit, change)))
            name = f"R_{i}_{k}"
            out[name] = (rename_class(splice(lines, replacements), "R", name), changes)
    return out


def test_every_restricted_identifier_is_a_target_javac_accepts_and_that_means_the_same(tmp_path, record_property):
    built = variants()
    done = compile_all({"R": SOURCE, **{name: text for name, (text, _) in built.items()}}, tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    printed = run_all(["R", *built], tmp_path)
    assert "#case records" in printed["R"] and "!!!" not in printed["R"]
    differ = [name for name in built if printed[name] != printed["R"]]
    assert not differ, (differ[:3], printed[differ[0]] if differ else "")
    renamed = sum(len(c) for _, changes in built.values() for c in changes.values())
    record_property(
        "oracle",
        f"{len(built)} variant classes, {renamed} locals and parameters renamed to a "
        f"restricted identifier, all compiling and printing the same",
    )
    assert renamed >= 5 * 50


def test_invar_reads_every_variant_back_as_it_read_the_original():
    originals = {u.name: u for u in parse_units(SOURCE, "R.java")}
    for name, (text, changes) in variants().items():
        for unit in parse_units(rename_class(text, name, "R"), "R.java"):
            original = originals[unit.name]
            assert unit.deps == original.deps, (name, unit.name)
            assert len(unit.referents) == len(original.referents), (name, unit.name)
            back = {r: name_of(o) for r, o in zip(unit.referents, original.referents)}
            assert retarget(unit, back).render() == original.render(), (name, unit.name, changes[unit.name])


def test_a_pool_of_restricted_identifiers_is_accepted_and_the_default_pool_keeps_them():
    (unit,) = [u for u in parse_units(SOURCE, "R.java") if u.name == "R.switches"]
    assert renaming_space(unit, pool=WORDS).count() == 5 * 4 * 3 * 2 * 1  # five referents, five words
    named = retarget(unit, {unit.referents[1]: "yield", unit.referents[2]: "var"})
    reread = parse_units(rename_class(SOURCE, "R", "R").replace(unit.render(), named.render()), "R.java")
    (again,) = [u for u in reread if u.name == "R.switches"]
    assert {"yield", "var"} <= {name_of(r) for r in again.referents}
    assert renaming_space(again).count() == renaming_space(unit).count()  # its own names, yield and var among them


#: (word, a declaration javac refuses): a word that is not an identifier, or a
#: restricted identifier where the JLS refuses it (a type's name, a method's
#: called by its simple name)
REFUSED = [
    ("_", "int _ = 1;"),
    ("goto", "int goto = 1;"),
    ("const", "int const = 1;"),
    ("null", "int null = 1;"),
    ("true", "int true = 1;"),
    ("non-sealed", "int non-sealed = 1;"),
    ("var", "class var {}"),
    ("yield", "class yield {}"),
    ("record", "class record {}"),
    ("sealed", "interface sealed {}"),
    ("permits", "class permits {}"),
    ("var", "java.util.List<var> l = null;"),
    ("yield", "yield(1);"),
]


def test_javac_refuses_what_invar_never_targets(tmp_path):
    commands = []
    for k, (word, declaration) in enumerate(REFUSED):
        (tmp_path / f"Q{k}").mkdir()
        path = tmp_path / f"Q{k}" / "Q.java"
        path.write_text(
            f"class Q {{\n    static int yield(int a) {{ return a; }}\n    void m() {{\n"
            f"        {declaration}\n    }}\n}}\n"
        )
        commands.append(["-d", str(tmp_path / f"Q{k}" / "out"), str(path)])
    for (word, declaration), (rc, diagnostics) in zip(REFUSED, compile_batches(commands, tmp_path)):
        assert rc != 0 and any(line == 4 for _, line, _ in error_lines(diagnostics)), (word, declaration, diagnostics)
    (unit,) = [u for u in parse_units(SOURCE, "R.java") if u.name == "R.plain"]
    for word in {w for w, _ in REFUSED if w not in RESTRICTED_IDENTIFIERS}:
        with pytest.raises(UsageError, match="cannot name a variable"):
            renaming_space(unit, pool=[word, "p", "q"])
    # types and methods (where the JLS refuses the restricted identifiers) are never renamed
    (records,) = [u for u in parse_units(SOURCE, "R.java") if u.name == "R.records"]
    untouched = {t.text for t in records.tokens if t.kind == "name" and t.referent is None}
    assert {"Pair", "left", "right"} <= untouched
    assert {t.text for t in records.tokens if t.kind == "keyword"} >= {"record", "var"}
