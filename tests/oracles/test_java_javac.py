"""Compiler oracle for the Java frontend.

Every sampled permutation and renaming of every fixture method must compile
with ``javac``; where the fixture class has a ``main`` driver, every variant
must print what the original prints. Each variant is the whole class under a
fresh name, so one ``javac`` call compiles them all and one JVM runs every
driver (javac and JVM start-up dominate otherwise).
"""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
import subprocess

import pytest

from invar.frontends.java import parse_units, renaming_space
from invar.symmetry.permutations import PermutationSpace

from ..conftest import FIXTURES
from .java_harness import JVM

JAVA_FIXTURES = sorted((FIXTURES / "java").glob("*.java"))
#: fixtures in Java 17 syntax (read by tree-sitter); kept apart so that the
#: counts of the fixtures above stay as they were recorded
JAVA17_FIXTURES = sorted((FIXTURES / "java" / "java17").glob("*.java"))
PERMUTATIONS, RENAMINGS = 1, 1
#: fixture methods (of the classes with a driver) reordered freely in the sensitivity check
DROPPED = 20

RUNNER = """
import java.io.*;
public class VariantRunner {
    public static void main(String[] args) throws Exception {
        PrintStream real = System.out;
        for (String name : args) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            System.setOut(new PrintStream(buf, true, "UTF-8"));
            Class.forName(name).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
            System.setOut(real);
            real.print("=== " + name + "\\n" + buf.toString("UTF-8"));
        }
    }
}
"""


def variants_of(path, rng):
    """(method name, variant source of the whole file) for sampled variants."""
    text = path.read_text()
    lines = text.split("\n")
    out = []
    for unit in parse_units(text, str(path)):
        first = unit.lines[0].source_line
        count = unit.render().count("\n") + 1
        assert "\n".join(lines[first - 1 : first - 1 + count]) == unit.render()
        perms = PermutationSpace(unit)
        names = renaming_space(unit)
        programs = [perms.apply(None, t) for t in perms.sample(PERMUTATIONS, rng)]
        if names.count():
            programs += [names.apply(None, r) for r in names.sample(RENAMINGS, rng)]
        for program in programs:
            body = lines[: first - 1] + program.render().split("\n") + lines[first - 1 + count :]
            out.append((unit.name, "\n".join(body)))
    return out


@pytest.fixture(scope="module")
def javac():
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.fail("javac/java not found (.ci/run installs Debian's openjdk)")
    return shutil.which("javac")


def test_enough_fixture_methods():
    assert sum(len(parse_units(p.read_text(), str(p))) for p in JAVA_FIXTURES) >= 100


def test_every_variant_compiles_and_prints_the_same(javac, tmp_path):
    assert compile_and_run(JAVA_FIXTURES, random.Random(7), javac, tmp_path) > 200


def test_every_variant_of_the_java17_fixtures_compiles_and_prints_the_same(javac, tmp_path):
    assert compile_and_run(JAVA17_FIXTURES, random.Random(17), javac, tmp_path) > 20


def compile_and_run(paths, rng: random.Random, javac: str, tmp_path) -> int:
    """Compile every sampled variant of ``paths`` and run its class's driver
    against the original's; the number of classes compiled."""
    sources = {}
    drivers = []
    originals = []
    for path in paths:
        cls = path.stem
        has_main = "public static void main" in path.read_text()
        if has_main:
            originals.append(cls)
            sources[cls] = path.read_text()
        for k, (method, source) in enumerate(variants_of(path, rng)):
            name = f"{cls}_v{k}"
            sources[name] = re.sub(rf"\b{cls}\b", name, source)
            if has_main:
                drivers.append((name, cls, method))
    for name, source in sources.items():
        (tmp_path / f"{name}.java").write_text(source)
    (tmp_path / "VariantRunner.java").write_text(RUNNER)
    files = sorted(str(p) for p in tmp_path.glob("*.java"))
    done = subprocess.run(
        [javac, *(f"-J{o}" for o in JVM), "-nowarn", "-d", str(tmp_path / "out"), *files],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    run = subprocess.run(
        ["java", *JVM, "-cp", str(tmp_path / "out"), "VariantRunner", *originals, *(d[0] for d in drivers)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    printed = {}
    for chunk in run.stdout.split("=== ")[1:]:
        name, _, body = chunk.partition("\n")
        printed[name] = body
    for name, cls, method in drivers:
        assert printed[name] == printed[cls], f"{method}: variant {name} prints differently"
    return len(sources)


def test_the_oracle_notices_dropped_dependencies(javac, tmp_path):
    """With every dependency deleted, some sampled reordering (of ``DROPPED``
    sampled methods) must stop compiling or print something else: the check
    above can fail."""
    rng = random.Random(11)
    sources = {}
    drivers = []
    methods = []
    for path in JAVA_FIXTURES:
        text = path.read_text()
        if "public static void main" in text:
            sources[path.stem] = text
            methods += [(path.stem, unit) for unit in parse_units(text, str(path))]
    for k in sorted(rng.sample(range(len(methods)), DROPPED)):
        cls, unit = methods[k]
        lines = sources[cls].split("\n")
        first = unit.lines[0].source_line
        count = unit.render().count("\n") + 1
        free = PermutationSpace(dataclasses.replace(unit, deps=()))
        for t in free.sample(1, rng):
            body = lines[: first - 1] + free.apply(None, t).render().split("\n") + lines[first - 1 + count :]
            name = f"{cls}_free{len(drivers)}"
            sources[name] = re.sub(rf"\b{cls}\b", name, "\n".join(body))
            drivers.append((name, cls))
    for name, source in sources.items():
        (tmp_path / f"{name}.java").write_text(source)
    (tmp_path / "VariantRunner.java").write_text(RUNNER)
    files = sorted(str(p) for p in tmp_path.glob("*.java"))
    done = subprocess.run(
        [javac, *(f"-J{o}" for o in JVM), "-nowarn", "-d", str(tmp_path / "out"), *files],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        assert "_free" in done.stderr, done.stderr[-4000:]  # a variant broke, not the originals
        return
    run = subprocess.run(
        [
            "java",
            *JVM,
            "-cp",
            str(tmp_path / "out"),
            "VariantRunner",
            *{c for _, c in drivers},
            *(d[0] for d in drivers),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    printed = dict(chunk.partition("\n")[::2] for chunk in run.stdout.split("=== ")[1:])
    assert run.returncode != 0 or any(printed[name] != printed[cls] for name, cls in drivers)
