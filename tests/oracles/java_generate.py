"""A seeded generator of Java classes whose methods exercise, on purpose, what
the Java frontend's dependency and renaming rules must get right.

Each class ``G<k>`` extends ``GenBase`` (a base constructor that prints) and
holds fields of every kind (instance and static ints, an int array, a list, a
string builder, a sorted map), three constructors and two methods whose
bodies are drawn from a grammar of statements: locals (``final`` and
annotated ones too), fields through ``this.`` and bare (and shadowed by
locals), arrays, ``ArrayList``/``TreeMap``/``StringBuilder``/iterators and
the JDK calls that read or mutate them, copy constructors, nested blocks that
reuse names, lambdas, anonymous and local classes capturing effectively-final
locals, compound assignments and increments anywhere (conditions, arguments,
loop headers, chains), labeled loops with ``break``/``continue``, ``switch``
with fall-through, ``try``/``catch``/``finally``, try-with-resources,
``synchronized``, ``assert`` and output through ``System.out``; locals
named like the constants of an enum ``Color`` a ``switch`` in their scope
labels, and like the types the method writes only where a type stands; calls
of a nested class named like a JDK class (``StrictMath``, ``Long``,
``Double``) whose static methods print or write; locals of the method's type
variable ``T extends Integer`` that may be null, unboxed in ``try`` bodies.
The Java 17 record's compact constructor may hand its locals to a lambda or
to an anonymous class declaring a local named like a component.

Its ``main`` calls every constructor and method on a few inputs and prints,
per case, what the unit printed, its return value and the state it can reach;
a case that raises prints ``!`` and its exception class, and is not compared
(docs/semantics.md covers only executions that complete normally). Every loop
is bounded, so every case ends.
"""

from __future__ import annotations

import random

#: shared by every generated class: compiled once per run
SUPPORT = {
    "GenBase": """
public class GenBase {
    protected int baseVal;
    protected GenBase(int v) {
        baseVal = v;
        System.out.println("base " + v);
    }
}
""",
    "GenBox": """
import java.util.Arrays;
public class GenBox {
    int v;
    int[] a = {1, 2};
    @Override
    public String toString() {
        return v + Arrays.toString(a);
    }
}
""",
    "GenRes": """
public class GenRes implements AutoCloseable {
    final String name;
    public GenRes(String name) {
        this.name = name;
        System.out.println("open " + name);
    }
    public int get() {
        return name.length();
    }
    @Override
    public void close() {
        System.out.println("close " + name);
    }
}
""",
}

#: local names: few, so that sibling blocks reuse them and locals shadow fields
NAMES = ["x", "y", "z", "t", "u", "n", "s", "list", "sb", "c"]
INPUTS = [(1, 2), (0, 5), (-3, 4), (7, -1)]


#: the constants of the enum ``Color`` a generated class declares where a method switches over it
ENUM = ["RED", "GREEN", "BLUE"]
#: JDK classes whose static methods invar takes for pure, and that the generated code never calls
#: otherwise: a class may declare a nested class of one of these names whose method prints
JDK_NAMES = ["StrictMath", "Long", "Double"]
#: types the generated methods write only where a type stands (a local may take their names)
TYPE_NAMES = ["GenBox", "StringBuilder", "List", "ArrayList", "Iterator"]


class _Class:
    """What the methods of one generated class share: the class members their
    statements asked for (``enum``: ``Color``; ``jdk``: the nested class
    named :attr:`jdk`, whose static ``abs`` methods print or write)."""

    def __init__(self, rng: random.Random) -> None:
        self.features: set[str] = set()
        self.jdk = rng.choice(JDK_NAMES)


class _Scope:
    def __init__(self) -> None:
        #: name -> (type, how): ``var`` (the generator may assign it), ``ro``
        #: (changed only where it was made: a loop counter), ``final`` (never
        #: changed: lambdas and inner classes may capture it)
        self.vars: dict[str, tuple[str, str]] = {}


class _Method:
    """Generates one body; ``ctor`` bodies return nothing and may not use
    ``this`` before their first statement."""

    def __init__(
        self,
        rng: random.Random,
        cls: str,
        ctor: bool,
        params: list[tuple[str, str]],
        modern: bool = False,
        kit: _Class | None = None,
    ) -> None:
        self.rng = rng
        self.kit = kit or _Class(rng)
        #: a local's type is the method's type variable ``T extends Integer`` (the method is generic)
        self.generic = False
        #: also write Java 17 statements (``var``, switch expressions, patterns, text blocks, records)
        self.modern = modern
        #: names being declared by the statement under construction (their
        #: initializer may not spell them, nor declare them again)
        self.declaring: set[str] = set()
        #: inside a switch expression: no return, and no jump out of it
        self.no_escape = False
        self.cls = cls
        self.ctor = ctor
        self.scopes = [_Scope()]
        for name, typ in params:
            self.scopes[0].vars[name] = (typ, "var")
        self.loop_depth = 0
        self.labels: list[str] = []
        self.local_classes = 0
        self.pending: set[str] = set()
        self.budget = rng.randint(8, 16)

    # ------------------------------------------------------------ scopes
    def lookup(self, name: str) -> tuple[str, str] | None:
        for sc in reversed(self.scopes):
            if name in sc.vars:
                return sc.vars[name]
        return None

    def locals_of(self, typ: str, assignable: bool = False, final: bool = False) -> list[str]:
        seen, out = set(), []
        for sc in reversed(self.scopes):
            for name, (t, how) in sc.vars.items():
                if name not in seen and t == typ and (how == "var" or not assignable) and (how == "final" or not final):
                    out.append(name)
                seen.add(name)
        return out

    def fresh(self, avoid: tuple[str, ...] = ()) -> str | None:
        """A name no local in scope has; until it is declared, the field of
        that name is spelled qualified (its initializer cannot name it bare)."""
        free = [n for n in NAMES if self.lookup(n) is None and n not in self.declaring and n not in avoid]
        if not free:
            return None
        name = self.rng.choice(free)
        self.pending.add(name)
        return name

    def field(self, name: str, inner: bool = False) -> str:
        """The field ``name``, qualified when a local hides it or at random
        (``inner``: inside an anonymous or local class, where ``this`` is that class)."""
        static = name == "s"
        if self.lookup(name) is not None or name in self.pending or name in self.declaring or self.rng.random() < 0.4:
            return f"{self.cls}.{name}" if static else f"{self.cls}.this.{name}" if inner else f"this.{name}"
        return name

    # ------------------------------------------------------- expressions
    def idx(self, arr: str) -> str:
        return f"Math.floorMod({self.expr(1)}, {arr}.length)"

    def expr(self, depth: int = 2) -> str:
        r = self.rng
        ints = self.locals_of("int")
        choices = ["lit", "lit", "field", "arr"]
        if ints:
            choices += ["local"] * 4
        if self.locals_of("int", assignable=True):
            choices += ["incr", "assign"]
        if depth > 0:
            choices += ["bin"] * 3 + ["tern", "call", "size"]
        k = r.choice(choices)
        if k == "lit":
            return str(r.randint(-3, 9))
        if k == "local":
            return r.choice(ints)
        if k == "field":
            return self.field(r.choice(["n", "n", "s", "baseVal"]))
        if k == "arr":
            arrs = ["xs", self.field("arr")] if self.lookup("xs") else [self.field("arr")]
            a = r.choice(arrs + self.locals_of("int[]"))
            return f"{a}[{self.idx(a)}]" if depth > 0 else f"{a}.length"
        if k == "incr":
            v = r.choice(self.locals_of("int", assignable=True))
            return r.choice([f"{v}++", f"++{v}", f"{v}--"])
        if k == "assign":
            v = r.choice(self.locals_of("int", assignable=True))
            return f"({v} = {self.expr(depth - 1)})"
        if k == "bin":
            return f"({self.expr(depth - 1)} {r.choice('+-*')} {self.expr(depth - 1)})"
        if k == "tern":
            return (
                f"({self.expr(depth - 1)} > {self.expr(depth - 1)} ? {self.expr(depth - 1)} : {self.expr(depth - 1)})"
            )
        if k == "call":
            return r.choice(
                [
                    f"Math.max({self.expr(depth - 1)}, {self.expr(depth - 1)})",
                    f"Integer.bitCount({self.expr(depth - 1)})",
                    f"Math.abs({self.expr(depth - 1)}) % 7",
                    f"{self.field('sb')}.length()",
                    f"{self.field('map')}.getOrDefault(\"k\", 0)",
                    f"({self.field('n')}++)",
                    f"{self.field('arr')}[0]++",
                ]
            )
        # sizes of containers, some through copies
        cands = [f"{self.field('list')}.size()", f"new ArrayList<>({self.field('list')}).size()"]
        if self.lookup("ys"):
            cands += ["ys.size()", "new ArrayList<>(ys).size()"]
        cands += [f"{v}.size()" for v in self.locals_of("List")]
        cands += [f"new String({v}).length()" for v in self.locals_of("char[]")]
        cands += [f"String.valueOf({v}).hashCode() % 5" for v in self.locals_of("char[]")]
        cands += [f"{v}.length()" for v in self.locals_of("SB")]
        return r.choice(cands)

    def cond(self) -> str:
        return f"{self.expr(1)} {self.rng.choice(['>', '<', '==', '!=', '>='])} {self.expr(1)}"

    # -------------------------------------------------------- statements
    def declare(self, name: str, typ: str, how: str = "var") -> None:
        self.scopes[-1].vars[name] = (typ, how)

    def block(self, ind: str, n: int, *, fresh_scope: bool = True) -> list[str]:
        if fresh_scope:
            self.scopes.append(_Scope())
        out = []
        for _ in range(n):
            if self.budget <= 0:
                break
            out += self.stmt(ind)
        if fresh_scope:
            self.scopes.pop()
        return out or [f"{ind}{self.field('n')} += 1;"]

    def stmt(self, ind: str) -> list[str]:
        self.budget -= 1
        self.pending.clear()
        r = self.rng
        nested = len(self.scopes) < 4 and self.budget > 2
        kinds = ["decl"] * 5 + ["assign"] * 4 + ["field"] * 3 + ["array"] * 2 + ["coll"] * 3 + ["print"] * 2
        kinds += ["copy", "chars", "capture", "box", "call", "lambda_coll"] * 2 + ["shadow", "assert", "misc"]
        kinds += ["cast_incr", "type_named", "user_jdk"]
        if nested:
            kinds += [
                "enum_switch",
                "block",
                "if",
                "for",
                "while",
                "switch",
                "try",
                "twr",
                "sync",
                "label",
                "local_class",
                "string_switch",
                "labeled_block",
            ]
        if self.loop_depth:
            kinds += ["jump"] * 2
        if self.modern:
            kinds += ["var", "switch_expr", "pattern", "text_block", "record"] * 2
            if nested:
                kinds += ["arrow_switch"] * 2
        k = r.choice(kinds)
        return getattr(self, f"s_{k}")(ind)

    def s_decl(self, ind: str) -> list[str]:
        name = self.fresh()
        if name is None:
            return self.s_assign(ind)
        r = self.rng
        mod = r.choice(
            ["", "", "", "final ", '@SuppressWarnings("unused") ', '@SuppressWarnings("unused")\n' + ind + "final "]
        )
        if r.random() < 0.15 and not mod:
            init = self.expr()
            self.declare(name, "int")
            return [f"{ind}int {name};", f"{ind}{name} = {init};"]
        line = f"{ind}{mod}int {name} = {self.expr()};"
        self.declare(name, "int", "final" if "final" in mod else "var")
        return [line]

    def s_assign(self, ind: str) -> list[str]:
        r = self.rng
        vs = self.locals_of("int", assignable=True)
        if not vs:
            return self.s_field(ind)
        v = r.choice(vs)
        form = r.randrange(6)
        if form == 0:
            return [f"{ind}{v} = {self.expr()};"]
        if form == 1:
            return [f"{ind}{v} {r.choice(['+=', '-=', '*=', '^=', '|=', '&=', '<<=', '>>='])} {self.expr()};"]
        if form == 2:
            return [f"{ind}{r.choice([v + '++', '++' + v, v + '--', '--' + v])};"]
        if form == 3 and len(vs) > 1:
            w = r.choice([x for x in vs if x != v])
            return [f"{ind}{v} = {w} = {self.expr()};"]
        if form == 4:
            return [f"{ind}{self.field('list')}.add({v} = {self.expr(1)});"]
        return [f"{ind}{v} = {self.field('n')} = {self.expr(1)};"]

    def s_cast_incr(self, ind: str) -> list[str]:
        """An increment under a cast or a prefix operator: it binds tighter
        (``(int) v++`` increments ``v``, JLS 15.15), whichever parser reads it."""
        r = self.rng
        vs = self.locals_of("int", assignable=True)
        name = self.fresh()
        if not vs or name is None:
            return self.s_assign(ind)
        v = r.choice(vs)
        value = r.choice([f"(int) {v}++", f"-{v}++", f"~{v}--", f"(int) -{v}++", f"-(int) {v}--", f"-~{v}++"])
        self.declare(name, "int")
        return [f"{ind}int {name} = {value};"]

    def s_field(self, ind: str) -> list[str]:
        r = self.rng
        f = self.field(r.choice(["n", "n", "s"]))
        return [
            r.choice(
                [
                    f"{ind}{f} = {self.expr()};",
                    f"{ind}{f} += {self.expr()};",
                    f"{ind}{f}++;",
                    f"{ind}++{f};",
                    f"{ind}{f}--;",
                    f"{ind}{f} *= 2;",
                ]
            )
        ]

    def s_array(self, ind: str) -> list[str]:
        r = self.rng
        arrs = [self.field("arr")] + (["xs"] if self.lookup("xs") else []) + self.locals_of("int[]")
        a = r.choice(arrs)
        form = r.randrange(8)
        if form == 0:
            return [f"{ind}{a}[{self.idx(a)}] = {self.expr()};"]
        if form == 1:
            return [f"{ind}{a}[{self.idx(a)}] += {self.expr()};"]
        if form == 2:
            return [f"{ind}{a}[{self.idx(a)}]++;"]
        if form == 3:
            return [f"{ind}Arrays.sort({a});"]
        if form == 4:
            return [f"{ind}Arrays.fill({a}, {self.expr(1)});"]
        if form == 5:
            b = r.choice(arrs)
            return [f"{ind}System.arraycopy({b}, 0, {a}, 0, Math.min({a}.length, {b}.length) - 1);"]
        if form == 6 and self.fresh():
            name = self.fresh()
            line = f"{ind}int[] {name} = {r.choice([a + '.clone()', f'Arrays.copyOf({a}, {a}.length)'])};"
            self.declare(name, "int[]", "final")
            return [line]
        return [f"{ind}{self.field('arr')} = Arrays.copyOf({self.field('arr')}, {self.field('arr')}.length + 1);"]

    def s_coll(self, ind: str) -> list[str]:
        r = self.rng
        lists = [self.field("list")] + (["ys"] if self.lookup("ys") else []) + self.locals_of("List")
        li = r.choice(lists)
        sb = r.choice([self.field("sb")] + self.locals_of("SB"))
        forms = [
            f"{li}.add({self.expr()});",
            f"if (!{li}.isEmpty()) {li}.remove(0);",
            f"Collections.reverse({li});",
            f"{sb}.append({self.expr()});",
            f"{sb}.append(\"-\").append({li}.size());",
            f"{self.field('map')}.put(\"k\", {self.expr()});",
            f"{self.field('map')}.merge(\"m\" + Math.floorMod({self.expr(1)}, 3), 1, Integer::sum);",
        ]
        its = self.locals_of("It")
        if its:
            it = r.choice(its)
            forms.append(f"{self.field('n')} += {it}.hasNext() ? {it}.next() : 0;")
        else:
            name = self.fresh()
            if name:
                if li == name:
                    li = f"this.{li}"
                self.declare(name, "It", "final")
                return [f"{ind}Iterator<Integer> {name} = {li}.iterator();"]
        return [ind + r.choice(forms)]

    def s_copy(self, ind: str) -> list[str]:
        r = self.rng
        name = self.fresh()
        if name is None:
            return self.s_coll(ind)
        kind = r.randrange(5)
        # a copy, sometimes followed by a change of its source
        if kind == 0:
            src = r.choice([self.field("list")] + (["ys"] if self.lookup("ys") else []) + self.locals_of("List"))
            self.declare(name, "List", "final")
            then = [f"{ind}{src}.add({self.expr(1)});"] if r.random() < 0.8 else []
            return [f"{ind}List<Integer> {name} = new ArrayList<>({src});"] + then
        if kind == 1:
            src = r.choice([self.field("sb")] + self.locals_of("SB"))
            self.declare(name, "SB", "final")
            then = [f"{ind}{src}.append({self.expr(1)});"] if r.random() < 0.8 else []
            return [f"{ind}StringBuilder {name} = new StringBuilder({src});"] + then
        if kind == 4 and self.locals_of("char[]"):
            src = r.choice(self.locals_of("char[]"))
            self.declare(name, "Str", "final")
            then = [f"{ind}{src}[0] = 'w';"] if r.random() < 0.8 else []
            return [f"{ind}String {name} = {r.choice(['new String', 'String.valueOf'])}({src});"] + then
        if kind == 2:
            init = f"new TreeMap<>({self.field('map')}).size()"
            self.declare(name, "int")
            return [f"{ind}int {name} = {init};"]
        self.declare(name, "List", "final")
        return [f"{ind}List<Integer> {name} = new ArrayList<>();"]

    def s_chars(self, ind: str) -> list[str]:
        r = self.rng
        cs = self.locals_of("char[]")
        if not cs:
            name = self.fresh()
            if name is None:
                return self.s_print(ind)
            self.declare(name, "char[]", "final")
            return [f"{ind}char[] {name} = {{'a', 'b', 'c'}};"]
        c = r.choice(cs)
        return [
            ind
            + r.choice(
                [
                    f"{c}[Math.floorMod({self.expr(1)}, 3)] = 'q';",
                    f"Character.toChars(65 + Math.floorMod({self.expr(1)}, 20), {c}, 1);",
                    f"{self.field('sb')}.append(new String({c}));",
                    f"{self.field('sb')}.append(String.valueOf({c}));",
                    f"Arrays.fill({c}, 'z');",
                ]
            )
        ]

    def box(self) -> str:
        return self.rng.choice([self.field("box")] + self.locals_of("Box"))

    def s_box(self, ind: str) -> list[str]:
        r = self.rng
        b = self.box()
        form = r.randrange(6)
        if form == 0:
            return [f"{ind}{b}.v += {self.expr()};"]
        if form == 1:
            return [f"{ind}{b}.a[Math.floorMod({self.expr(1)}, 2)]++;"]
        if form == 2:
            return [f"{ind}{self.field('n')} += {b}.v + {b}.a[0];"]
        name = self.fresh()
        if name is None:
            return [f"{ind}{b}.v--;"]
        self.declare(name, "Box", "final")
        if form == 3:
            return [f"{ind}GenBox {name} = new GenBox();"]
        return [f"{ind}GenBox {name} = {b};"]  # an alias: writes through it reach the field's object

    def s_call(self, ind: str) -> list[str]:
        r = self.rng
        arrs = [self.field("arr")] + (["xs"] if self.lookup("xs") else []) + self.locals_of("int[]")
        return [
            ind
            + r.choice(
                [
                    f"{self.field('n')} += helper({self.expr(1)});",
                    f"this.helper({self.expr(1)});",
                    f"bump({r.choice(arrs)});",
                    f"System.out.println(helper(1) + {self.expr(1)});",
                ]
            )
        ]

    def captured(self) -> str:
        """An expression a lambda may capture: a literal or an effectively-final local."""
        finals = self.locals_of("int", final=True)
        return self.rng.choice(finals) if finals and self.rng.random() < 0.7 else str(self.rng.randint(0, 6))

    def s_lambda_coll(self, ind: str) -> list[str]:
        r = self.rng
        lists = [self.field("list")] + (["ys"] if self.lookup("ys") else []) + self.locals_of("List")
        li = r.choice(lists)
        sb = r.choice([self.field("sb")] + self.locals_of("SB"))
        return [
            ind
            + r.choice(
                [
                    f"{li}.forEach(w -> {sb}.append(w));",
                    f"{li}.removeIf(w -> w > {self.captured()});",
                    f"{li}.replaceAll(w -> w + {self.captured()});",
                    f"Collections.sort({li});",
                    f"{li}.sort(null);",
                    f"{sb}.reverse();",
                    f"{sb}.insert(0, {self.expr(1)});",
                    f"{sb}.setLength(Math.min({sb}.length(), 3));",
                    f"for (Map.Entry<String, Integer> en : {self.field('map')}.entrySet()) {self.field('n')} += "
                    f"en.getValue();",
                    f"{self.field('n')} += String.join(\",\", \"a\", \"b\").length() + {li}.stream().mapToInt(w -> "
                    f"w).sum();",
                ]
            )
        ]

    def simple(self) -> str:
        """A one-line statement without declarations."""
        r = self.rng
        vs = self.locals_of("int", assignable=True)
        forms = [
            f"{self.field('n')}++;",
            f"{self.field('s')} += {self.expr(1)};",
            f"{self.field('list')}.add({self.expr(1)});",
            f"System.out.println({self.expr(1)});",
        ]
        if vs:
            forms += [f"{r.choice(vs)} += {self.expr(1)};", f"{r.choice(vs)}++;"]
        return r.choice(forms)

    def s_misc(self, ind: str) -> list[str]:
        r = self.rng
        form = r.randrange(6)
        if form == 0:
            return [f"{ind}if ({self.cond()}) {self.simple()}"]
        if form == 1:
            return [f"{ind}if ({self.cond()}) {self.simple()} else {self.simple()}"]
        if form == 2:
            i = self.fresh()
            if i is None:
                return [ind + self.simple()]
            if r.random() < 0.5:
                return [f"{ind}for (int {i} = 0; {i} < 2; {i}++) {self.field('n')} += {i};"]
            # an unbraced body whose last branch still names the loop variable
            return [
                f"{ind}for (int {i} = 0; {i} < 2; {i}++)",
                f"{ind}    if ({i} > {self.captured()}) {self.field('n')} += {i}; else {self.field('s')} -= {i};",
            ]
        if form == 3:
            return [f"{ind}{self.simple()} {self.simple()}"]  # two statements on one line
        if form == 4:
            return [f"{ind}// a comment travels with the statement below it", ind + self.simple()]
        lists = [self.field("list")] + (["ys"] if self.lookup("ys") else [])
        return [f"{ind}if ({r.choice(lists)} instanceof ArrayList) {{", f"{ind}    {self.simple()}", f"{ind}}}"]

    def s_string_switch(self, ind: str) -> list[str]:
        out = [f"{ind}switch (\"k\" + Math.floorMod({self.expr(1)}, 3)) {{"]
        for case in ('case "k0":', 'case "k1":', "default:"):
            out.append(f"{ind}    {case} {{")
            out += self.block(ind + "        ", 1)
            if self.rng.random() < 0.6:
                out.append(f"{ind}        break;")
            out.append(f"{ind}    }}")
        return out + [f"{ind}}}"]

    def s_labeled_block(self, ind: str) -> list[str]:
        lbl = f"B{self.rng.randrange(100)}"
        if lbl in self.labels:
            return self.s_print(ind)
        self.labels.append(lbl)
        self.scopes.append(_Scope())
        out = [f"{ind}{lbl}: {{"] + self.block(ind + "    ", 1, fresh_scope=False)
        out += [f"{ind}    if ({self.cond()}) {{", f"{ind}        break {lbl};", f"{ind}    }}"]
        out += self.block(ind + "    ", 1, fresh_scope=False)
        self.scopes.pop()
        self.labels.pop()
        return out + [f"{ind}}}"]

    def show_locals(self, ind: str, assignable: bool = False) -> list[str]:
        """Print the locals in scope whose text is deterministic, so that every
        write to them is observable (``assignable``: only the ints the
        generator assigns, as a handler sees them after a raise)."""
        shown = {
            "int": "{}",
            "Integer": "{}",
            "List": "{}",
            "SB": "{}",
            "Box": "{}",
            "Str": "{}",
            "char[]": "new String({})",
            "int[]": "Arrays.toString({})",
        }
        names = []
        for typ, fmt in shown.items():
            if assignable and typ != "int":
                continue
            names += [fmt.format(v) for v in self.locals_of(typ, assignable=assignable)]
        if not names:
            return []
        return [f"{ind}System.out.println(\"locals \" + " + " + \" \" + ".join(names) + ");"]

    def s_print(self, ind: str) -> list[str]:
        return [f"{ind}System.out.println(\"p\" + {self.expr()});"]

    def s_capture(self, ind: str) -> list[str]:
        r = self.rng
        ro = self.locals_of("int", final=True)
        name = self.fresh()
        if not ro or name is None:
            if name is None:
                return self.s_print(ind)
            init = self.expr()
            self.declare(name, "int", "final")
            return [f"{ind}{r.choice(['final ', ''])}int {name} = {init};"]
        v = r.choice(ro)
        kind = r.randrange(4)
        if kind == 0:
            decl = f"{ind}IntSupplier {name} = () -> {v} + {self.field('n')};"
        elif kind == 1:
            decl = (
                f"{ind}IntSupplier {name} = new IntSupplier() {{ public int getAsInt() "
                f"{{ return {v} * 2 + {self.field('n', inner=True)}; }} }};"
            )
        elif kind == 2:
            p = self.fresh()
            if p is None or p == name:
                return self.s_print(ind)
            self.declare(name, "Op", "final")
            return [
                f"{ind}IntUnaryOperator {name} = {p} -> {p} * 3 + {v};",
                f"{ind}{self.field('n')} += {name}.applyAsInt({self.expr(1)});",
            ]
        else:
            self.declare(name, "Run", "final")
            return [f"{ind}Runnable {name} = () -> {self.field('list')}.add({v});", f"{ind}{name}.run();"]
        self.declare(name, "Sup", "final")
        use = r.choice([f"{self.field('n')} += {name}.getAsInt();", f"System.out.println({name}.getAsInt());"])
        return [decl, ind + use]

    def s_shadow(self, ind: str) -> list[str]:
        # a local that hides a field from here on
        for name, typ, init in (
            ("n", "int", "{e}"),
            ("s", "int", "{e}"),
            ("list", "List<Integer>", "new ArrayList<>()"),
        ):
            if self.lookup(name) is None and name not in self.declaring:  # not in its own initializer either
                self.pending.add(name)
                line = f"{ind}{typ} {name} = {init.format(e=self.expr())};"
                self.declare(name, "int" if typ == "int" else "List", "var" if typ == "int" else "final")
                return [line]
        return self.s_print(ind)

    def s_jump(self, ind: str) -> list[str]:
        r = self.rng
        jump = r.choice(["break", "continue"])
        # continue needs a loop's label; break may leave a labeled block too
        labels = [x for x in self.labels if jump == "break" or x.startswith("L")]
        tgt = f" {r.choice(labels)}" if labels and r.random() < 0.5 else ""
        if jump == "break" and not tgt and not self.loop_depth:
            return self.s_print(ind)
        return [f"{ind}if ({self.cond()}) {{", f"{ind}    {jump}{tgt};", f"{ind}}}"]

    def s_block(self, ind: str) -> list[str]:
        return [f"{ind}{{"] + self.block(ind + "    ", 3) + [f"{ind}}}"]

    def s_if(self, ind: str) -> list[str]:
        out = [f"{ind}if ({self.cond()}) {{"] + self.block(ind + "    ", 2)
        if self.rng.random() < 0.5:
            out += [f"{ind}}} else {{"] + self.block(ind + "    ", 2)
        if not self.ctor and not self.no_escape and self.rng.random() < 0.2:
            out.insert(1, f"{ind}    if ({self.cond()}) {{")
            out.insert(2, f"{ind}        return {self.expr(1)};")
            out.insert(3, f"{ind}    }}")
        return out + [f"{ind}}}"]

    def _loop(
        self,
        head: list[str],
        ind: str,
        tail: str = "}",
        declare: str | None = None,
        label: str | None = None,
        declare_how: str = "ro",
    ) -> list[str]:
        self.loop_depth += 1
        if label:
            self.labels.append(label)
        self.scopes.append(_Scope())
        if declare:
            self.declare(declare, "int", declare_how)
        body = self.block(ind + "    ", 2, fresh_scope=False)
        self.scopes.pop()
        if label:
            self.labels.pop()
        self.loop_depth -= 1
        return head + body + [ind + tail]

    def s_for(self, ind: str) -> list[str]:
        r = self.rng
        i = self.fresh()
        if i is None:
            return self.s_print(ind)
        kind = r.randrange(3)
        if kind == 0:
            upd = r.choice([f"{i}++", f"{i}++, {self.field('n')}++", f"{i} += 1"])
            return self._loop([f"{ind}for (int {i} = 0; {i} < {r.randint(1, 3)}; {upd}) {{"], ind, declare=i)
        if kind == 1:
            src = r.choice([self.field("list"), self.field("arr")] + (["xs", "ys"] if self.lookup("xs") else []))
            return self._loop([f"{ind}for (int {i} : {src}) {{"], ind, declare=i, declare_how="final")
        # a counter declared before the loop, advanced in the header
        out = [f"{ind}int {i} = 0;"]
        self.declare(i, "int", "ro")
        return out + self._loop([f"{ind}for (; {i} < 2; {i}++) {{"], ind)

    def s_while(self, ind: str) -> list[str]:
        r = self.rng
        c = self.fresh()
        if c is None:
            return self.s_print(ind)
        self.declare(c, "int", "ro")
        kind = r.randrange(3)
        if kind == 0:
            return [f"{ind}int {c} = 0;"] + self._loop([f"{ind}while ({c}++ < 2) {{"], ind)
        if kind == 1:
            return [f"{ind}int {c} = 0;"] + self._loop([f"{ind}do {{"], ind, tail=f"}} while (++{c} < 2);")
        body = self._loop([f"{ind}while (true) {{"], ind)
        return (
            [f"{ind}int {c} = 0;"]
            + body[:1]
            + [f"{ind}    if ({c}++ >= 2) {{", f"{ind}        break;", f"{ind}    }}"]
            + body[1:]
        )

    def s_label(self, ind: str) -> list[str]:
        r = self.rng
        lbl = f"L{r.randrange(100)}"
        if lbl in self.labels:
            return self.s_print(ind)
        i = self.fresh()
        if i is None:
            return self.s_print(ind)
        return self._loop([f"{ind}{lbl}:", f"{ind}for (int {i} = 0; {i} < 3; {i}++) {{"], ind, declare=i, label=lbl)

    def s_switch(self, ind: str) -> list[str]:
        # each case body braced: a declaration in one case is in scope, but not
        # assigned, in the cases below it
        out = [f"{ind}switch (Math.floorMod({self.expr(1)}, 4)) {{"]
        for case in ("case 0:", "case 1:", "case 2:", "default:"):
            out.append(f"{ind}    {case} {{")
            out += self.block(ind + "        ", 1)
            if self.rng.random() < 0.5:
                out.append(f"{ind}        break;")
            out.append(f"{ind}    }}")
        return out + [f"{ind}}}"]

    def s_enum_switch(self, ind: str) -> list[str]:
        """Locals named like the constants of the class's enum ``Color``, then
        a ``switch`` over it in their scope: its ``case RED`` labels name the
        constants, never the locals (a renaming that swapped the locals' names
        and the labels' would swap the branches)."""
        r = self.rng
        self.kit.features.add("enum")
        out = []
        for name in r.sample(ENUM[:2], r.randint(1, 2)):
            if self.lookup(name) is None and name not in self.declaring:
                out.append(f"{ind}int {name} = {self.expr(1)};")
                self.declare(name, "int")
        arrow = self.modern and r.random() < 0.5
        out.append(f"{ind}switch (Color.values()[Math.floorMod({self.expr(1)}, 3)]) {{")
        for label in ("case RED", "case GREEN", "default"):
            out.append(f"{ind}    {label}{' ->' if arrow else ':'} {{")
            out += self.block(ind + "        ", 1)
            if not arrow and r.random() < 0.6:
                out.append(f"{ind}        break;")
            out.append(f"{ind}    }}")
        return out + [f"{ind}}}"]

    def s_type_named(self, ind: str) -> list[str]:
        """An int local named like a type the method writes, then that type
        where only a type stands (``int GenBox = 3; GenBox q = new
        GenBox();``): there the name means the type, in an expression the
        local (``GenBox.v`` would not compile), so no expression spells it."""
        r = self.rng
        free = [t for t in TYPE_NAMES + ["Pt"] * self.modern if self.lookup(t) is None and t not in self.declaring]
        if not free:
            return self.s_decl(ind)
        typ = r.choice(free)
        out = [f"{ind}int {typ} = {self.expr()};"]
        self.declare(typ, "int")
        q = self.fresh()
        if typ == "Pt":
            return out + [f"{ind}{self.field('n')} += new Pt({typ}, {self.expr(1)}).sum({typ});"]
        if q is None:
            return out + [f"{ind}{self.field('n')} += {typ} + new GenBox().v;"]
        if typ == "GenBox":
            self.declare(q, "Box", "final")
            return out + [f"{ind}GenBox {q} = new GenBox();", f"{ind}{q}.v = {typ};"]
        if typ == "StringBuilder":
            src = r.choice([self.field("sb")] + self.locals_of("SB"))
            self.declare(q, "SB", "final")
            return out + [f"{ind}StringBuilder {q} = new StringBuilder({src});"]
        lists = [self.field("list")] + (["ys"] if self.lookup("ys") else []) + self.locals_of("List")
        src = r.choice(lists)
        if typ == "Iterator":
            self.declare(q, "It", "final")
            return out + [f"{ind}Iterator<Integer> {q} = {src}.iterator();"]
        self.declare(q, "List", "final")
        return out + [f"{ind}{typ}<Integer> {q} = new ArrayList<>({src});", f"{ind}{q}.add({typ});"]

    def s_user_jdk(self, ind: str) -> list[str]:
        """A call of the class's nested ``StrictMath`` (or ``Long``,
        ``Double``): a user class named like a JDK class whose static methods
        invar takes for pure, its ``abs`` printing and adding to ``s`` (or to
        its array argument's first element); declared into a local, it may be
        followed by a read of what it changed."""
        r = self.rng
        self.kit.features.add("jdk")
        name = self.fresh()
        other = self.fresh(avoid=(name,)) if name is not None else None
        if r.random() < 0.5:
            call, changed = f"{self.kit.jdk}.abs({self.expr(1)})", self.field("s")
        else:  # the overload that increments its array's first element
            a = r.choice([self.field("arr")] + self.locals_of("int[]"))
            call, changed = f"{self.kit.jdk}.abs({a})", f"{a}[0]"
        form = r.randrange(4)
        if form < 2 and name is not None:
            self.declare(name, "int")
            out = [f"{ind}int {name} = {call};"]
            if other is not None and form == 0:
                self.declare(other, "int")
                out.append(f"{ind}int {other} = {changed};")
            return out
        if form == 2:
            return [f'{ind}System.out.println("j" + {call});']
        return [f"{ind}{self.field('n')} += {call};"]

    def s_try(self, ind: str) -> list[str]:
        r = self.rng
        a = r.choice([self.field("arr")] + (["xs"] if self.lookup("xs") else []))
        out = []
        q = self.fresh() if r.random() < 0.3 else None
        if q is not None:
            # a boxed local that may be null: unboxing it raises inside the try
            init = self.expr(1)
            self.declare(q, "Integer", "final")
            if not self.ctor:
                # of the method's type variable ``T extends Integer``: it unboxes as an Integer does
                self.generic = True
                out.append(f"{ind}T {q} = {init} > 2 ? null : (T) Integer.valueOf({init});")
            else:
                out.append(f"{ind}Integer {q} = {init} > 2 ? null : {init};")
        # one scope for the whole body, the statement that may raise anywhere in it
        self.scopes.append(_Scope())
        chunks = []  # the body's statements, each a list of lines
        for _ in range(r.randint(0, 2)):
            chunks.append(self.stmt(ind + "    "))
        vs = self.locals_of("int", assignable=True)
        if q is not None and vs and (not self.ctor or r.random() < 0.5):
            risky = f"{r.choice(vs)} = {q} + 1;"  # unboxing alone may raise: no field is named (of T: always)
        elif q is not None:
            risky = f"{self.field('n')} += {q};"
        else:
            risky = r.choice(
                [
                    f"{self.field('n')} += {a}[{self.expr(1)}];",
                    f"{self.field('n')} += 12 / {self.expr(1)};",
                    # a conditional with a null branch is an Integer: unboxing the null raises
                    f"{self.field('n')} += {self.expr(1)} > 2 ? {self.expr(1)} : null;",
                ]
            )
        chunks.append([ind + "    " + risky])
        for _ in range(r.randint(0, 2)):
            chunks.append(self.stmt(ind + "    "))
        self.scopes.pop()
        outer = self.locals_of("int", assignable=True)
        if outer:
            # a local write beside the statement that may raise: the handler
            # sees whether it happened
            chunks.insert(r.randint(0, len(chunks)), [f"{ind}    {r.choice(outer)} += {r.randint(1, 9)};"])
        body = [line for chunk in chunks for line in chunk]
        out += [f"{ind}try {{"] + body
        e = self.fresh()
        if e is None:
            e = "ex"
        out += [f"{ind}}} catch (RuntimeException {e}) {{"] + [
            f"{ind}    System.out.println(\"caught \" + {self.field('n')});"
        ]
        out += self.show_locals(ind + "    ", assignable=True)
        self.scopes.append(_Scope())
        self.declare(e, "Exc", "final")
        out += self.block(ind + "    ", 1)
        self.scopes.pop()
        if r.random() < 0.5:
            out += [f"{ind}}} finally {{"] + self.block(ind + "    ", 1)
        return out + [f"{ind}}}"]

    def s_twr(self, ind: str) -> list[str]:
        name = self.fresh()
        if name is None:
            return self.s_print(ind)
        out = [f"{ind}try (GenRes {name} = new GenRes(\"r\" + {self.expr(1)})) {{"]
        self.scopes.append(_Scope())
        self.declare(name, "Res", "final")
        out += self.block(ind + "    ", 2, fresh_scope=False)
        out.append(f"{ind}    {self.field('n')} += {name}.get();")
        self.scopes.pop()
        return out + [f"{ind}}}"]

    def s_sync(self, ind: str) -> list[str]:
        return [f"{ind}synchronized (this) {{"] + self.block(ind + "    ", 2) + [f"{ind}}}"]

    def s_local_class(self, ind: str) -> list[str]:
        ro = self.locals_of("int", final=True)
        v = self.rng.choice(ro) if ro else "7"
        self.local_classes += 1
        name = f"Local{self.local_classes}"
        return [
            f"{ind}class {name} {{",
            f"{ind}    int get() {{",
            f"{ind}        return {v} + {self.field('n', inner=True)};",
            f"{ind}    }}",
            f"{ind}}}",
            f"{ind}{self.field('n')} += new {name}().get();",
        ]

    # ------------------------------------------------ Java 17 statements
    def s_var(self, ind: str) -> list[str]:
        name = self.fresh()
        if name is None:
            return self.s_assign(ind)
        if self.rng.random() < 0.7:
            line = f"{ind}var {name} = {self.expr()};"
            self.declare(name, "int")
            return [line]
        lists = [self.field("list")] + (["ys"] if self.lookup("ys") else []) + self.locals_of("List")
        line = f"{ind}var {name} = new ArrayList<>({self.rng.choice(lists)});"
        self.declare(name, "List", "final")
        return [line]

    def s_switch_expr(self, ind: str) -> list[str]:
        """``int x = switch (…) { case 0 -> …; case 1 -> { …; yield …; } default -> …; };``"""
        name = self.fresh()
        if name is None:
            return self.s_print(ind)
        r = self.rng
        saved = self.loop_depth, self.labels, self.no_escape
        self.loop_depth, self.labels, self.no_escape = 0, [], True
        self.declaring.add(name)
        out = [
            f"{ind}int {name} = switch (Math.floorMod({self.expr(1)}, 3)) {{",
            f"{ind}    case 0 -> {self.expr(1)};",
            f"{ind}    case 1 -> {{",
        ]
        out += self.block(ind + "        ", r.randint(1, 2))
        out += [
            f"{ind}        yield {self.expr(1)};",
            f"{ind}    }}",
            f"{ind}    default -> {self.expr(1)};",
            f"{ind}}};",
        ]
        self.declaring.discard(name)
        self.loop_depth, self.labels, self.no_escape = saved
        self.declare(name, "int")
        return out

    def s_arrow_switch(self, ind: str) -> list[str]:
        out = [
            f"{ind}switch (Math.floorMod({self.expr(1)}, 3)) {{",
            f"{ind}    case 0 -> {self.simple()}",
            f"{ind}    case 1, 2 -> {{",
        ]
        out += self.block(ind + "        ", 2)
        return out + [f"{ind}    }}", f"{ind}    default -> {self.simple()}", f"{ind}}}"]

    def s_pattern(self, ind: str) -> list[str]:
        """An object tested with ``instanceof Integer p``: the pattern variable
        in scope where the test is true (``&&``, ``?:``, an ``if`` body), or,
        after a negated test that returns, for the rest of the block."""
        r = self.rng
        o = self.fresh()
        if o is None:
            return self.s_print(ind)
        self.declaring.add(o)
        p = self.fresh(avoid=("n", "s", "list", "sb"))  # a pattern variable never hides a field here
        self.declaring.discard(o)
        if p is None:
            return self.s_print(ind)
        out = [f"{ind}Object {o} = {self.expr(1)} > 2 ? (Object) Integer.valueOf({self.expr(1)}) : \"w\";"]
        self.declare(o, "Obj")
        form = r.randrange(4)
        if form == 1 and (self.ctor or self.no_escape):
            form = 3
        if form == 0:
            out.append(f"{ind}if ({o} instanceof Integer {p} && {p} > {self.expr(1)}) {{")
            self.scopes.append(_Scope())
            self.declare(p, "Integer", "final")
            out += self.block(ind + "    ", 1, fresh_scope=False) + [f"{ind}    {self.field('n')} += {p};"]
            self.scopes.pop()
            return out + [f"{ind}}}"]
        if form == 2:
            return out + [f"{ind}{self.field('n')} += {o} instanceof Integer {p} ? {p} * 2 : {self.expr(1)};"]
        if form == 1:
            out += [f"{ind}if (!({o} instanceof Integer {p})) {{", f"{ind}    return {self.expr(1)};", f"{ind}}}"]
        else:
            out += [f"{ind}while (!({o} instanceof Integer {p})) {{", f"{ind}    {o} = {self.expr(1)};", f"{ind}}}"]
        self.declare(p, "Integer", "final")
        return out + [f"{ind}{self.field('n')} += {p};"]

    def s_text_block(self, ind: str) -> list[str]:
        name = self.fresh()
        if name is None:
            return self.s_print(ind)
        words = " ".join(self.rng.sample(NAMES, 3))
        self.declare(name, "Str", "final")
        return [
            f'{ind}String {name} = """',
            f'{ind}    {words} = "q"\\t',
            f'{ind}    """;',
            f"{ind}{self.field('sb')}.append({name}.strip());",
        ]

    def s_record(self, ind: str) -> list[str]:
        return [f"{ind}{self.field('n')} += new Pt({self.expr(1)}, {self.expr(1)}).sum({self.expr(1)});"]

    def s_assert(self, ind: str) -> list[str]:
        return [f"{ind}assert {self.expr(1)} != 12345 : \"never\";"]


def generate_class(cls: str, seed: int, modern: bool = False) -> tuple[str, list[str]]:
    """The source of class ``cls`` and the names of its units, from ``seed``
    (``modern``: with Java 17 statements and a record ``Pt`` whose compact
    constructor and method are units too)."""
    rng = random.Random(seed)
    kit = _Class(rng)
    ind = "        "
    out = [
        "import java.util.*;",
        "import java.util.function.*;",
        "",
        f"public class {cls} extends GenBase {{",
        "    int n;",
        "    static int s;",
        "    int[] arr = {3, 1, 2};",
        "    List<Integer> list = new ArrayList<>(Arrays.asList(4, 5));",
        "    StringBuilder sb = new StringBuilder(\"b\");",
        "    Map<String, Integer> map = new TreeMap<>();",
        "    GenBox box = new GenBox();",
        "",
        "    int helper(int v) {",
        "        n += v;",
        "        System.out.println(\"helper \" + v);",
        "        return n;",
        "    }",
        "",
        "    static void bump(int[] a) {",
        "        a[0]++;",
        "    }",
        "",
    ]
    units = []
    if modern:
        out += _record(rng)
        units += [f"{cls}.Pt.Pt", f"{cls}.Pt.sum"]
    members = len(out)  # where the members the methods ask for go
    # constructors: super(...) and this(...) first
    g = _Method(rng, cls, True, [("a", "int"), ("b", "int")], modern, kit)
    sup = f"a * {rng.randint(1, 3)} + b"
    out += [f"    {cls}(int a, int b) {{", f"{ind}super({sup});"] + g.block(ind, 6, fresh_scope=False)
    out += g.show_locals(ind) + ["    }", ""]
    g = _Method(rng, cls, True, [("a", "int")], modern, kit)
    out += [f"    {cls}(int a) {{", f"{ind}this(a, {rng.randint(0, 4)});"] + g.block(ind, 4, fresh_scope=False)
    out += g.show_locals(ind) + ["    }", ""]
    units += [f"{cls}.{cls}"] * 2
    params = [("a", "int"), ("b", "int"), ("xs", "int[]"), ("ys", "List")]
    for name in ("m1", "m2"):
        g = _Method(rng, cls, False, params, modern, kit)
        body = g.block(ind, 30, fresh_scope=False) + g.show_locals(ind)
        ret = g.expr()
        generic = "<T extends Integer> " if g.generic else ""
        out += (
            [f"    {generic}int {name}(int a, int b, int[] xs, List<Integer> ys) {{"]
            + body
            + [f"{ind}return {ret};", "    }", ""]
        )
        units.append(f"{cls}.{name}")
    out[members:members] = _members(kit, cls, units)
    out += _driver(cls)
    out.append("}")
    return "\n".join(out) + "\n", units


def _members(kit: _Class, cls: str, units: list[str]) -> list[str]:
    """The members the methods of the class asked for (:class:`_Class`);
    adds the names of their units to ``units``."""
    out = []
    if "enum" in kit.features:
        out += ["    enum Color { RED, GREEN, BLUE }", ""]
    if "jdk" in kit.features:
        out += f"""    static class {kit.jdk} {{
        static int abs(int v) {{
            s += v;
            System.out.println("abs " + v);
            return v < 0 ? -v : v;
        }}

        static int abs(int[] a) {{
            return a[0]++;
        }}
    }}
""".split("\n")
        units += [f"{cls}.{kit.jdk}.abs"] * 2
    return out


def _record(rng: random.Random) -> list[str]:
    """A record whose compact constructor reassigns a component (its
    parameters are implicit) and may hand its locals to a lambda or to an
    anonymous class that declares a local named like a component the
    constructor does not spell (which no local of the constructor may be
    renamed to, though no token there shows the component), and whose
    method uses ``var`` and ``yield``."""
    k = rng.randint(1, 4)
    rest = [
        ["var d = y - x;", 'System.out.println("pt " + d);'],
        [
            "var d = y - x;",
            "int e = d * 2;",
            "IntSupplier f = () -> d + e;",
            'System.out.println("pt " + d + " " + f.getAsInt());',
        ],
        [
            f"var d = x + {k};",
            "int e = d + 1;",
            "Runnable r = new Runnable() {",
            "    public void run() {",
            "        int y = d * 2;",
            '        System.out.println("run " + y);',
            "    }",
            "};",
            "r.run();",
            'System.out.println("pt " + d + " " + e);',
        ],
    ][rng.choice([0, 1, 2, 2])]
    body = "\n".join("            " + line for line in rest)
    return f"""    record Pt(int x, int y) {{
        Pt {{
            if (x > {k}) {{
                x = {k};
            }}
{body}
        }}

        int sum(int k) {{
            var t = x + y;
            int u = t * k;
            int w = switch (Math.floorMod(k, 2)) {{
                case 0 -> u;
                default -> {{
                    int q = u + {rng.randint(1, 5)};
                    yield q;
                }}
            }};
            return w + x;
        }}
    }}
""".split("\n")


def _driver(cls: str) -> list[str]:
    inputs = ", ".join(f"{{{a}, {b}}}" for a, b in INPUTS)
    return f"""    static String state({cls} o, int[] xs, List<Integer> ys) {{
        return o.n + " " + s + " " + Arrays.toString(o.arr) + " " + o.list + " " + o.sb + " " + o.map
            + " " + o.baseVal + " " + o.box + " " + Arrays.toString(xs) + " " + ys;
    }}

    public static void main(String[] args) {{
        int[][] inputs = {{{inputs}}};
        for (int k = 0; k < inputs.length; k++) {{
            for (int w = 0; w < 4; w++) {{
                System.out.println("#case " + k + " " + w);
                s = k;
                int[] xs = {{k, 2, 9, -1}};
                List<Integer> ys = new ArrayList<>(Arrays.asList(6, k, 8));
                try {{
                    {cls} o = w == 0 ? new {cls}(inputs[k][0], inputs[k][1]) : new {cls}(inputs[k][0]);
                    Object r = "";
                    if (w == 2) {{
                        r = o.m1(inputs[k][0], inputs[k][1], xs, ys);
                    }} else if (w == 3) {{
                        r = o.m2(inputs[k][0], inputs[k][1], xs, ys);
                    }}
                    System.out.println("= " + r + " " + state(o, xs, ys));
                }} catch (Throwable e) {{
                    System.out.println("! " + e.getClass().getName());
                }}
            }}
        }}
    }}
""".split("\n")


__all__ = ["SUPPORT", "generate_class", "INPUTS"]
