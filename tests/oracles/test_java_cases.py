"""One row per defect class of the Java frontend: a class ``C``, the unit under
test, its exact permutation and renaming counts. Every permutation and every
renaming of the unit (a seeded sample of ``PER_SPACE`` of each where there are
more) must compile with ``javac``, and where the class has a ``main`` driver,
print what the original prints."""

from __future__ import annotations

import random

import pytest

from invar.frontends.java import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from .java_harness import compile_all, failing_files, rename_class, run_all

#: (id, source of class C, unit, permutations, renamings)
ROWS = [
    (
        "this-field-increment",
        """
class C {
    int n = 1;
    int m() {
        int a = n;
        this.n++;
        ++this.n;
        int b = (this.n)++;
        int c = 3;
        return a * 100 + b * 10 + c + n;
    }
    public static void main(String[] x) { System.out.println(new C().m()); }
}""",
        "C.m",
        5,
        6,
    ),
    (
        "field-compound-and-chains",
        """
class C {
    int n = 1;
    int[] arr = {1, 2};
    C other;
    int m(int i) {
        int a = n;
        n += 1;
        int b = arr[i];
        arr[i]++;
        other.n += 5;
        int d, e;
        d = e = n;
        n = 7;
        return a + b * 10 + other.n * 100 + d + e + n;
    }
    public static void main(String[] x) { C c = new C(); c.other = new C(); System.out.println(c.m(1) + " " + c.n); }
}""",
        "C.m",
        6,
        24,
    ),
    (
        "assignment-in-condition-and-argument",
        """
import java.util.*;
class C {
    List<Integer> out = new ArrayList<>();
    int m(int a) {
        int x = 0;
        int y = a;
        if ((x = a + 1) > 3) {
            y++;
        }
        out.add(x = 9);
        int z = x;
        return y + z;
    }
    public static void main(String[] s) { C c = new C(); System.out.println(c.m(5) + " " + c.out); }
}""",
        "C.m",
        2,
        6,
    ),
    (
        "copy-constructors-read-their-source",
        """
import java.util.*;
class C {
    static String m(List<Integer> xs, char[] cs, StringBuilder sb) {
        List<Integer> copy = new ArrayList<>(xs);
        String s = new String(cs);
        StringBuilder t = new StringBuilder(sb);
        xs.add(3);
        cs[0] = 'z';
        sb.append("!");
        return copy + s + t;
    }
    public static void main(String[] a) {
        System.out.println(m(new ArrayList<>(List.of(1)), new char[] {'a', 'b'}, new StringBuilder("q")));
    }
}""",
        "C.m",
        6,
        36,
    ),
    (
        "impure-statics",
        """
class C {
    static String m(char[] cs) {
        String s = String.valueOf(cs);
        Character.toChars(66, cs, 0);
        double r = Math.random();
        double q = Math.random();
        int k = Math.abs(-3);
        return s + new String(cs) + (r == q) + k;
    }
    public static void main(String[] a) { System.out.println(m(new char[] {'a', 'b'})); }
}""",
        "C.m",
        1,
        24,
    ),
    (
        "explicit-constructor-calls-first",
        """
class CaseBase { int v; CaseBase(int v) { this.v = v; System.out.println("base " + v); } }
class C extends CaseBase {
    int n;
    C(int a) {
        super(a * 2);
        int x = 3;
        int y = a;
        n = x + y;
    }
    C() {
        this(4);
        int z = 5;
        System.out.println(z);
    }
    public static void main(String[] s) { System.out.println(new C().n + " " + new C(1).v); }
}""",
        "C.C@5",
        2,
        2,
    ),
    (
        "declarations-keep-annotations-and-modifiers",
        """
class C {
    static int m(int p) {
        @SuppressWarnings("unused")
        final int a = p;
        final @Deprecated int b = 2;
        @SuppressWarnings({"unused", "rawtypes"}) int c = 3;
        return 0;
    }
}""",
        "C.m",
        6,
        6,
    ),
    (
        "annotation-element-named-like-a-local",
        """
class C {
    static int m(int value) {
        @SuppressWarnings(value = "unused")
        int a = value;
        int b = 2;
        return a + b;
    }
    public static void main(String[] s) { System.out.println(m(3)); }
}""",
        "C.m",
        2,
        2,
    ),
    (
        "unicode-escapes-keep-columns",
        r"""
class C {
    static int m(char c) {
        int k = (c == '\u3002' || c == '\uFF0E') ? 1 : 0;
        int j = c == 'a' ? 2 : 0;
        return k + j + (c == '\u3002' ? 4 : 0);
    }
    public static void main(String[] s) { System.out.println(m('\u3002') + " " + m('a')); }
}""",
        "C.m",
        2,
        2,
    ),
    (
        "unbraced-loop-bodies",
        """
class C {
    int i = 100;
    int m(int[] a) {
        for (int i = 0; i < a.length; i++)
            if (a[i] > 1) a[i]++; else a[i]--;
        int k = 0;
        do k++; while (k < 3);
        return i + k + a[0];
    }
    public static void main(String[] s) { System.out.println(new C().m(new int[] {1, 2})); }
}""",
        "C.m",
        3,
        2,
    ),
    (
        "shadowing-between-blocks",
        """
class C {
    int t = 40;
    int n;
    int m() {
        {
            int k = 1;
            n += k;
        }
        for (int i = 0; i < 2; i++) {
            n += i;
        }
        int u = t;
        int k = 2;
        int t = 5;
        return u + k + t + n;
    }
    public static void main(String[] s) { System.out.println(new C().m()); }
}""",
        "C.m",
        4,
        120,
    ),
    (
        "lambdas-and-classes-capture",
        """
import java.util.function.*;
class C {
    int n = 1;
    int m() {
        int a = 2;
        IntSupplier f = () -> a + n;
        int b = 3;
        IntSupplier g = new IntSupplier() { public int getAsInt() { return b * 10 + n; } };
        int c = 4;
        IntUnaryOperator h = x -> x + c;
        n = 100;
        return f.getAsInt() + g.getAsInt() + h.applyAsInt(a);
    }
    public static void main(String[] s) { System.out.println(new C().m()); }
}""",
        "C.m",
        63,
        120,
    ),
    (
        "labels-and-jumps",
        """
class C {
    int m(int lim) {
        int outer = 0;
        int total = 0;
        outer:
        for (int i = 0; i < lim; i++) {
            for (int j = 0; j < lim; j++) {
                if (j > i) {
                    continue outer;
                }
                if (i + j > 4) {
                    break outer;
                }
                total += j;
            }
        }
        return total + outer;
    }
    public static void main(String[] s) { System.out.println(new C().m(5)); }
}""",
        "C.m",
        2,
        24,
    ),
    (
        "switch-fall-through-synchronized-assert",
        """
class C {
    int n;
    int m(int k) {
        int a = 1;
        switch (k) {
            case 0:
                a += 1;
            case 1:
                a += 2;
                break;
            default:
                a = 0;
        }
        int b = 2;
        synchronized (this) {
            n += a;
            int c = 3;
            n += c;
        }
        assert a > 0 : "a";
        int d = 4;
        return a + b + d + n;
    }
    public static void main(String[] s) { C c = new C(); System.out.println(c.m(0) + " " + c.m(1) + " " + c.m(2)); }
}""",
        "C.m",
        6,
        24,
    ),
    (
        "endless-loop-last",
        """
class C {
    int n;
    void m() {
        int y = 1;
        n = y;
        while (true) {
            n++;
        }
    }
}""",
        "C.m",
        1,
        1,
    ),
    (
        "definite-assignment",
        """
class C {
    static int m(boolean c) {
        int x;
        final int y;
        int z = 5;
        if (c) {
            x = 1;
        } else {
            x = 2;
        }
        y = x + 1;
        return x + y + z;
    }
    public static void main(String[] s) { System.out.println(m(true) + " " + m(false)); }
}""",
        "C.m",
        15,
        6,
    ),
    (
        "try-with-resources-and-catch",
        """
import java.io.*;
class C {
    static int n;
    static class CaseRes implements AutoCloseable {
        public void close() { n += 10; System.out.println("close " + n); }
    }
    static int m(int[] a, int i) {
        int before = n;
        try (CaseRes r = new CaseRes()) {
            n++;
        }
        int after = n;
        try {
            n += a[i];
            n *= 2;
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("caught " + n);
        }
        return before * 1000 + after;
    }
    public static void main(String[] s) {
        System.out.println(m(new int[] {1}, 0) + " " + m(new int[] {1}, 5) + " " + n);
    }
}""",
        "C.m",
        1,
        48,
    ),
    (
        "loop-header-increments-and-for-each",
        """
import java.util.*;
class C {
    int n;
    List<Integer> xs = new ArrayList<>(List.of(1, 2));
    int m() {
        int k = n;
        for (int i = 0; i < 3; i++, n++) {
            k += i;
        }
        int sum = 0;
        for (int v : xs) {
            sum += v;
        }
        xs.add(5);
        return k + sum * 10 + n;
    }
    public static void main(String[] s) { System.out.println(new C().m()); }
}""",
        "C.m",
        3,
        24,
    ),
    (
        "for-each-over-an-array",
        """
class C {
    static int m(int[] xs) {
        int total = 0;
        for (int v : xs) {
            total += v;
        }
        xs[0] = 9;
        int[] ys = {1, 2};
        return total + ys[0];
    }
    public static void main(String[] s) { System.out.println(m(new int[] {1, 2})); }
}""",
        "C.m",
        4,
        6,
    ),
    (
        "names-resolved-the-same",
        """
import java.util.*;
import java.util.stream.*;
class C {
    int n = 5;
    int m(List<String> words) {
        int k = n;
        int length = 2;
        int total = words.stream().mapToInt(String::length).sum();
        int n = 1;
        return k + length + total + n;
    }
    public static void main(String[] s) { System.out.println(new C().m(List.of("ab", "c"))); }
}""",
        "C.m",
        8,
        24,
    ),
    (
        "catch-parameter-after-uses-of-its-name",
        """
class C {
    int n = 3;
    int f(int a, int b) { return a + b; }
    int m(int a) {
        int x = f(a, n);
        int y = this.n;
        try {
            x += 10 / a;
        } catch (ArithmeticException n) {
            y = -1;
        }
        return x + y;
    }
    public static void main(String[] s) { C c = new C(); System.out.println(c.m(2) + " " + c.m(0)); }
}""",
        "C.m",
        1,
        6,
    ),
    (
        "postfix-under-casts-on-the-tree-sitter-path",
        """
class C {
    record Force(int z) {}
    static long m(int i, int k) {
        long a = (long) i++;
        int b = i;
        int c = -~k++;
        int d = k;
        long e = -(long) k--;
        int f = k;
        return a * 100000 + b * 10000 + c * 1000 + d * 100 + e * 10 + f;
    }
    public static void main(String[] s) { System.out.println(m(3, 5)); }
}""",
        "C.m",
        15,
        1440,
    ),
    (
        "null-branch-unboxed-in-try",
        """
class C {
    static int m(boolean c) {
        int x = 0;
        int z = 0;
        try {
            x = 5;
            z = c ? 1 : null;
        } catch (NullPointerException e) {
            return x;
        }
        return x + z;
    }
    public static void main(String[] s) { System.out.println(m(true) + " " + m(false)); }
}""",
        "C.m",
        2,
        6,
    ),
    (
        "local-of-a-type-variable-bounded-by-a-boxed-type-unboxed-in-try",
        """
class C {
    static <T extends Integer> int m(T p) {
        int x = 0;
        int u = 0;
        try {
            x = 5;
            T t = p;
            u = t + 1;
        } catch (NullPointerException e) {
            return x;
        }
        return x + u;
    }
    public static void main(String[] s) { System.out.println(m(3) + " " + C.<Integer>m(null)); }
}""",
        "C.m",
        2,
        24,
    ),
    (
        "type-variable-bounded-through-a-class-variable-unboxed-in-try-on-the-tree-sitter-path",
        """
class C<S extends Long> {
    record Force(int z) {}
    <U extends S> long m(U p) {
        long x = 0;
        long u = 0;
        try {
            x = 5;
            u = p + 1;
        } catch (NullPointerException e) {
            return x;
        }
        return x + u;
    }
    public static void main(String[] s) { C<Long> c = new C<>(); System.out.println(c.m(3L) + " " + c.m(null)); }
}""",
        "C.m",
        2,
        6,
    ),
    (
        "locals-named-like-types-and-enum-constants",
        """
import java.util.*;
class C {
    enum Color { RED, GREEN }
    static class A {}
    static class B {}
    int v = 7;
    class In {
        int m(Color c, Object o) {
            int RED = 1;
            String String = "ab" + RED;
            List<String> xs = new ArrayList<>(List.of(String));
            String[] arr = new String[xs.size()];
            int A = arr.length + In.this.hashCode() % 1;
            if (o instanceof A) {
                return A + RED;
            }
            int P = (Object) String instanceof String ? 5 : 6;
            switch (c) {
                case RED: return RED * 10 + C.this.v + P + (C.class.isEnum() ? 1 : 2);
                case GREEN: return A * 100 + String.length();
            }
            return 0;
        }
    }
    public static void main(String[] s) {
        In in = new C().new In();
        System.out.println(in.m(Color.RED, "x") + " " + in.m(Color.GREEN, "y") + " " + in.m(Color.RED, new A()));
    }
}""",
        "C.In.m",
        1,
        1440,
    ),
    (
        "compact-constructor-components-are-implicit-parameters",
        """
class C {
    record Pt(int x, int y) {
        Pt {
            int a = 1;
            Runnable r = new Runnable() { public void run() { int x = 5; System.out.println("run " + x); } };
            r.run();
            System.out.println("pt " + a);
        }
    }
    public static void main(String[] s) { System.out.println(new Pt(1, 2)); }
}""",
        "C.Pt.Pt",
        3,
        6,
    ),
    (
        "user-classes-named-like-jdk-classes",
        """
import java.util.*;
class C {
    static class Math {
        static int abs(int x) { System.out.println("abs " + x); return x < 0 ? -x : x; }
    }
    static class ArrayList<T> extends java.util.ArrayList<T> {
        ArrayList() { System.out.println("made"); }
    }
    static int m(int p) {
        int a = Math.abs(p);
        int b = Math.abs(p - 10);
        List<Integer> xs = new ArrayList<>();
        System.out.println("p=" + p);
        return a * 100 + b + xs.size();
    }
    public static void main(String[] s) { System.out.println(m(3)); }
}""",
        "C.m",
        1,
        6,
    ),
    (
        "string-join-iterates-an-iterable",
        """
import java.util.*;
class C {
    static String m(Iterable<String> it, String[] words) {
        String a = String.join(",", it);
        String b = String.join(";", it);
        String c = String.join("+", words);
        String d = String.join("-", "p", "q");
        return a + "|" + b + "|" + c + d;
    }
    public static void main(String[] s) {
        Iterator<String> one = List.of("x", "y").iterator();
        Iterable<String> once = () -> one;
        System.out.println(m(once, new String[] {"u", "v"}));
    }
}""",
        "C.m",
        2,
        48,
    ),
]


#: permutations, and renamings, compiled per row: all of them, or a seeded sample of this many
PER_SPACE = 16


def some(space, rng: random.Random) -> list:
    """Every element of ``space``, or ``PER_SPACE`` of them drawn without replacement."""
    every = list(space.enumerate())
    return every if len(every) <= PER_SPACE else rng.sample(every, PER_SPACE)


def unit_of(source: str, name: str):
    units = {u.name: u for u in parse_units(source, "C.java")}
    return units[name]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_exact_counts(row):
    _, source, name, perms, renamings = row
    unit = unit_of(source, name)
    assert (PermutationSpace(unit).count(), renaming_space(unit).count()) == (perms, renamings)


def test_every_variant_of_every_row_compiles_and_prints_the_same(tmp_path, record_property):
    sources, drivers = {}, []
    for r, (rid, source, name, _, _) in enumerate(ROWS):
        unit = unit_of(source, name)
        lines = source.split("\n")
        first = unit.lines[0].source_line
        count = unit.render().count("\n") + 1
        perms, names = PermutationSpace(unit), renaming_space(unit)
        rng = random.Random(r)
        programs = [perms.apply(None, t) for t in some(perms, rng)]
        programs += [names.apply(None, x) for x in some(names, rng)]
        stem = f"C{r}"
        has_main = "static void main" in source
        sources[stem] = rename_class(source, "C", stem)
        for k, program in enumerate(programs):
            body = lines[: first - 1] + program.render().split("\n") + lines[first - 1 + count :]
            variant = f"{stem}_{k}"
            sources[variant] = rename_class("\n".join(body), "C", variant)
            if has_main:
                drivers.append((variant, stem, rid))
    # a top-level helper class is per file: give each file its own
    for key in list(sources):
        sources[key] = rename_class(sources[key], "CaseBase", f"CaseBase_{key}")
    done = compile_all(sources, tmp_path)
    record_property(
        "oracle",
        f"{len(ROWS)} defect-class rows, {len(sources) - len(ROWS)} variants compiled, "
        f"{len(drivers)} run; {len(failing_files(done.stderr))} not compiling",
    )
    assert done.returncode == 0, done.stderr[-4000:]
    printed = run_all(sorted({d[1] for d in drivers}) + [d[0] for d in drivers], tmp_path)
    wrong = [(rid, v) for v, stem, rid in drivers if printed[v] != printed[stem]]
    assert not wrong, wrong[:5]
