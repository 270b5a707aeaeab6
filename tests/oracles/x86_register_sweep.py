"""The register sweep: which instruction forms llvm-mca times differently
depending on which register they name.

An oracle that shares nothing with invar's renaming code: instructions are
decoded by capstone, their operands split and their registers substituted
here, instances assembled by ``llvm-mc`` and timed by ``llvm-mca``.

A *form* is a mnemonic (with its prefixes) and the kinds of its operands: a
register's class and width (``gpr:64``, ``gpr:8h``, ``vec:128`` …), ``imm``, a
memory operand's shape (``mem:b``, ``mem:bi``, ``mem:fs:abs``, ``mem:r`` for
rip-relative …), a fixed register (``%st(1)``). Each register occurrence of a
renamable class (a register operand, or a memory operand's base or index) is
a *slot*. The forms swept are those of BHive and those of the generated-block
oracle (tests/oracles/x86_generate.py), which writes some BHive lacks
(``xchgw %ax, %ax``); EVEX-only instructions, which BHive lacks too, are swept
over all 32 vector registers on skylake-avx512.

For every form the sweep instantiates the form's first occurrence with every
register of each slot's class, under several *patterns* of which slots name
the same register (all distinct, as the occurrence has them, each pair tied:
a renaming keeps the pattern, so each is its own case; ``xchgq %rax, %rax``
is a nop where ``xchgq %rcx, %rcx`` is not), with the form's own immediate
and with ``$0``, ``$1`` and ``$1000``, and times each instance in two blocks:

* ``alone``: the instruction is the loop body (its throughput, and the
  latency of its last iteration);
* ``chained``: each register it names is first written by a producer reading
  it (``imulq`` for general-purpose registers, ``vpaddq`` for vector ones,
  ``paddq`` for MMX), so the instruction's inputs arrive late and its outputs
  feed the next iteration's producers.

A slot group (the slots tied to one register) is *register-dependent* on a
CPU when the cycles differ between its registers in one block shape with one
immediate; the registers whose cycles differ from the most common value are
the group's special registers. Such differences come from llvm-mca's
scheduling classes (``adcq $0, %rax`` has its own encoding and class) and from
implicit operands (``mulq %rdx`` reads the register it names twice), which
invar pins anyway.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

#: the CPU models: BHive's three (haswell, ivybridge, skylake), and
#: skylake-avx512, which times invar's AVX-512 test blocks
CPUS = ("haswell", "ivybridge", "skylake", "skylake-avx512")
#: AVX-512 instructions with no VEX form (not in BHive), swept over all 32
#: vector registers on skylake-avx512: a renaming may move them into 16-31
EVEX_ONLY_SAMPLES = (
    ("vmovdqu64", "%xmm1, %xmm2"),
    ("vmovdqu64", "(%rax), %ymm2"),
    ("vmovdqa32", "%ymm1, (%rdi)"),
    ("vmovdqu8", "%xmm1, %xmm2"),
    ("vpternlogd", "$0x96, %xmm1, %xmm2, %xmm3"),
    ("vpternlogq", "$0xe8, %ymm1, %ymm2, %ymm3"),
    ("vpermt2q", "%ymm1, %ymm2, %ymm3"),
    ("vprold", "$3, %xmm1, %xmm2"),
    ("vpmullq", "%ymm1, %ymm2, %ymm3"),
    ("vpsraq", "$2, %xmm1, %xmm2"),
    ("vpabsq", "%ymm1, %ymm2"),
    ("vpmaxuq", "%xmm1, %xmm2, %xmm3"),
    ("vrcp14ps", "%ymm1, %ymm2"),
    ("vpconflictd", "%xmm1, %xmm2"),
    ("vcvtps2qq", "%xmm1, %ymm2"),
    ("vrndscaleps", "$1, %ymm1, %ymm2"),
    ("valignq", "$1, %ymm1, %ymm2, %ymm3"),
    ("vpmovqd", "%ymm1, %xmm2"),
)
ITERATIONS = 100
MC = ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "-filetype=obj", "-o", "/dev/null"]

_GPR = ("a", "c", "d", "b", "sp", "bp", "si", "di") + tuple(f"r{i}" for i in range(8, 16))
_GPR_NAMES: dict[str, dict[str, str]] = {
    "a": {"8": "al", "8h": "ah", "16": "ax", "32": "eax", "64": "rax"},
    "c": {"8": "cl", "8h": "ch", "16": "cx", "32": "ecx", "64": "rcx"},
    "d": {"8": "dl", "8h": "dh", "16": "dx", "32": "edx", "64": "rdx"},
    "b": {"8": "bl", "8h": "bh", "16": "bx", "32": "ebx", "64": "rbx"},
    "sp": {"8": "spl", "16": "sp", "32": "esp", "64": "rsp"},
    "bp": {"8": "bpl", "16": "bp", "32": "ebp", "64": "rbp"},
    "si": {"8": "sil", "16": "si", "32": "esi", "64": "rsi"},
    "di": {"8": "dil", "16": "di", "32": "edi", "64": "rdi"},
}
for _i in range(8, 16):
    _GPR_NAMES[f"r{_i}"] = {"8": f"r{_i}b", "16": f"r{_i}w", "32": f"r{_i}d", "64": f"r{_i}"}
#: register name -> (class, base, width)
NAMES: dict[str, tuple[str, str, str]] = {}
for _b, _ws in _GPR_NAMES.items():
    for _w, _n in _ws.items():
        NAMES[_n] = ("gpr", _b, _w)
for _i in range(32):
    NAMES[f"xmm{_i}"] = ("vec", str(_i), "128")
    NAMES[f"ymm{_i}"] = ("vec", str(_i), "256")
    NAMES[f"zmm{_i}"] = ("vec", str(_i), "512")
for _i in range(8):
    NAMES[f"mm{_i}"] = ("mmx", str(_i), "64")
    NAMES[f"k{_i}"] = ("mask", str(_i), "64")
#: the bases a slot may take, per class (vector registers 16-31 need EVEX)
BASES = {
    "gpr": _GPR,
    "vec": tuple(str(i) for i in range(16)),
    "mmx": tuple(str(i) for i in range(8)),
    "mask": tuple(str(i) for i in range(8)),
}
EVEX_BASES = tuple(str(i) for i in range(32))
#: the immediates each form is tried with beside its own: zero (``adc $0``
#: is one micro-op on Haswell, but not in its accumulator encoding), one
#: byte, four bytes
IMMEDIATES = ("$0", "$1", "$1000")


def spell(cls: str, base: str, width: str) -> str | None:
    if cls == "gpr":
        n = _GPR_NAMES[base].get(width)
        return None if n is None else "%" + n
    if cls == "vec":
        return "%" + {"128": "xmm", "256": "ymm", "512": "zmm"}[width] + base
    return f"%mm{base}" if cls == "mmx" else f"%k{base}"


# ------------------------------------------------------------------ forms
@dataclass(frozen=True)
class Slot:
    #: which operand (0-based, AT&T order) and where in it: reg, base, index
    operand: int
    role: str
    cls: str
    width: str

    @property
    def view(self) -> str:
        return f"{self.cls}:{self.width}"


@dataclass
class Form:
    #: mnemonic and operand kinds, e.g. ``adcq imm,gpr:64``
    key: str
    mnemonic: str
    kinds: tuple[str, ...]
    #: the representative instruction with ``{0}``, ``{1}`` … for its slots and ``{imm}`` for its immediate
    template: str
    slots: tuple[Slot, ...]
    #: the representative's registers, one (class, base) per slot
    original: tuple[tuple[str, str], ...]
    #: the representative's immediate (``$…``), when it has exactly one
    immediate: str | None = None
    #: how many distinct BHive instructions have this form
    count: int = 1


_REG = re.compile(r"%([a-z0-9]+)")
_MEM = re.compile(r"^(?P<seg>%[a-z]s:)?(?P<disp>[-+]?(?:0x)?[0-9a-f]*)(?:\((?P<inner>[^)]*)\))?$")


def split_operands(op_str: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in op_str:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _operand(k: int, text: str, slots: list[Slot], original: list, pieces: list[str]) -> str:
    """The operand's kind; appends its slots and its template text."""
    star = "*" if text.startswith("*") else ""
    body = text[len(star) :]
    if body.startswith("$"):
        pieces.append(star + "{imm}")
        return "imm"
    reg = NAMES.get(body[1:]) if body.startswith("%") else None
    if reg is not None:
        cls, base, width = reg
        pieces.append(star + "{%d}" % len(slots))
        slots.append(Slot(k, "reg", cls, width))
        original.append((cls, base))
        return f"{cls}:{width}"
    m = _MEM.match(body)
    if m:
        parts = [p.strip() for p in (m.group("inner") or "").split(",")]
        shape, inner = "", []
        for role, part in zip(("base", "index"), parts):
            name = part[1:] if part.startswith("%") else ""
            if name in NAMES:
                cls, base, width = NAMES[name]
                inner.append("{%d}" % len(slots))
                slots.append(Slot(k, role, cls, width))
                original.append((cls, base))
                shape += role[0]
            else:
                inner.append(part)
                shape += "r" if name in ("rip", "eip") else ""
        inner += parts[2:]
        seg = m.group("seg") or ""
        pieces.append(
            f"{star}{seg}{m.group('disp')}" + ("(" + ",".join(inner) + ")" if m.group("inner") is not None else "")
        )
        width = "".join(sorted({s.width for s in slots if s.operand == k and s.role == "base"}))
        return f"mem{':' + seg[1:-1] if seg else ''}:{shape or 'abs'}{width if width == '32' else ''}"
    pieces.append(text)
    return text


def form_of(mnemonic: str, op_str: str) -> Form | None:
    """The form of one instruction (capstone's mnemonic, prefixes included,
    and operand text); None when it has AVX-512 decorators (not in BHive)."""
    if "{" in op_str or "}" in op_str:
        return None
    words = mnemonic.split()
    slots: list[Slot] = []
    original: list = []
    pieces: list[str] = []
    kinds = []
    operands = split_operands(op_str)
    immediates = [o for o in operands if o.startswith("$")]
    for k, text in enumerate(operands):
        if text.startswith("$") and len(immediates) != 1:
            kinds.append("imm")
            pieces.append(text)
            continue
        kinds.append(_operand(k, text, slots, original, pieces))
    template = " ".join(words + [", ".join(pieces)]) if pieces else mnemonic
    key = f"{mnemonic} {','.join(kinds)}".strip()
    return Form(
        key,
        mnemonic,
        tuple(kinds),
        template,
        tuple(slots),
        tuple(original),
        immediates[0] if len(immediates) == 1 else None,
    )


def bhive_forms(blocks: Iterable[str]) -> list[Form]:
    """Every form in the blocks (hex), in order of first occurrence."""
    import capstone

    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.syntax = capstone.CS_OPT_SYNTAX_ATT
    seen: set[str] = set()
    forms: dict[str, Form] = {}
    for h in blocks:
        for _, _, mnemonic, op_str in md.disasm_lite(bytes.fromhex(h), 0):
            text = f"{mnemonic} {op_str}".strip()
            if text in seen:
                continue
            seen.add(text)
            form = form_of(mnemonic, op_str)
            if form is None:
                continue
            if form.key in forms:
                forms[form.key].count += 1
            else:
                forms[form.key] = form
    return list(forms.values())


def generated_forms(n_blocks: int = 2000, seed: int = 15) -> list[Form]:
    """The forms of seeded blocks of the generated-block oracle
    (tests/oracles/x86_generate.py), which writes forms BHive lacks
    (``xchgw %ax, %ax``): assembled by llvm-mc, decoded by capstone."""
    import random

    from tests.oracles.x86_generate import generate_block
    from tests.oracles.x86_oracle import assemble_lines

    rng = random.Random(seed)
    lines = sorted({line for _ in range(n_blocks) for line in generate_block(rng, vector=False).text.splitlines()})
    encoded, _ = assemble_lines({f"l{k}": [line] for k, line in enumerate(lines)})
    return bhive_forms(b"".join(parts).hex() for parts in encoded.values() if b"".join(parts))


def swept_forms(blocks: Iterable[str]) -> list[Form]:
    """BHive's forms, then those of the generated blocks BHive lacks."""
    forms = {f.key: f for f in bhive_forms(blocks)}
    for f in generated_forms():
        forms.setdefault(f.key, f)
    return list(forms.values())


# ------------------------------------------------------------------ instances
@dataclass(frozen=True)
class Instance:
    form: str
    #: the slot groups tied to one register, as tuples of slot indices
    pattern: tuple[tuple[int, ...], ...]
    #: the group whose register varies
    group: int
    #: that group's register (class:base)
    register: str
    immediate: str | None
    text: str


def patterns(form: Form) -> list[tuple[tuple[int, ...], ...]]:
    """All slots distinct; as the representative has them; each pair of
    slots of one class tied."""
    n = len(form.slots)
    out = [tuple((i,) for i in range(n))]
    groups: dict = {}
    for i, reg in enumerate(form.original):
        groups.setdefault(reg, []).append(i)
    out.append(tuple(tuple(g) for g in groups.values()))
    for i, j in itertools.combinations(range(n), 2):
        if form.slots[i].cls == form.slots[j].cls:
            out.append(tuple(sorted([(i, j)] + [(k,) for k in range(n) if k not in (i, j)])))
    return list(dict.fromkeys(out))


def _fits(base: str, slots: Sequence[Slot], group: Sequence[int]) -> bool:
    return all(spell(slots[i].cls, base, slots[i].width) is not None for i in group)


def instances(form: Form, *, evex: bool = False) -> list[Instance]:
    """Every instance of the form: for each pattern, each group, each
    register that group can name, the other groups on distinct registers
    taken from the far end of the class's encoding order."""
    out: dict[str, Instance] = {}
    imms = [None] if form.immediate is None else list(dict.fromkeys([form.immediate] + list(IMMEDIATES)))
    for pattern in patterns(form):
        for g, group in enumerate(pattern):
            cls = form.slots[group[0]].cls
            bases = EVEX_BASES if evex and cls == "vec" else BASES[cls]
            for base in bases:
                if not _fits(base, form.slots, group):
                    continue
                regs: dict[int, tuple[str, str]] = {g: (cls, base)}
                used = {(cls, base)}
                for h, other in enumerate(pattern):
                    if h == g:
                        continue
                    ocls = form.slots[other[0]].cls
                    pool = BASES[ocls][::-1]
                    pick = next((b for b in pool if (ocls, b) not in used and _fits(b, form.slots, other)), None)
                    if pick is None:
                        break
                    regs[h] = (ocls, pick)
                    used.add((ocls, pick))
                else:
                    names = [""] * len(form.slots)
                    for h, other in enumerate(pattern):
                        for i in other:
                            names[i] = spell(form.slots[i].cls, regs[h][1], form.slots[i].width)
                    for imm in imms:
                        text = form.template.format(*names, imm=imm)
                        out.setdefault(text, Instance(form.key, pattern, g, f"{cls}:{base}", imm, text))
    return list(out.values())


_PRODUCER = {"gpr": "imulq %{r}, %{r}", "vec": "vpaddq %xmm{b}, %xmm{b}, %xmm{b}", "mmx": "paddq %mm{b}, %mm{b}"}


def chained(inst: Instance, form: Form) -> str:
    """The instance after a producer of each register it names."""
    regs = []
    for name in _REG.findall(inst.text):
        if name in NAMES and NAMES[name][0] in _PRODUCER:
            cls, base, _ = NAMES[name]
            if (cls, base) not in regs:
                regs.append((cls, base))
    lines = [_PRODUCER[c].format(r=_GPR_NAMES[b]["64"] if c == "gpr" else "", b=b) for c, b in regs]
    return "\n".join(lines + [inst.text])


# ------------------------------------------------------------------ tools
def rejected(texts: Sequence[str]) -> set[int]:
    """Indices of the texts (one instruction or block each) llvm-mc rejects, by one run."""
    lines, owner = [], []
    for i, t in enumerate(texts):
        for line in t.splitlines():
            lines.append(line)
            owner.append(i)
    run = subprocess.run(MC, input="\n".join(lines) + "\n", capture_output=True, text=True)
    return {owner[int(m) - 1] for m in re.findall(r"<stdin>:(\d+):\d+: error", run.stderr)}


def cycles(texts: Sequence[str], cpu: str, chunk: int = 5000) -> list[int | None]:
    """Total Cycles of each text (a block) under ``llvm-mca -mcpu=cpu
    -iterations=100``, as the code regions of one run per ``chunk`` texts
    (llvm-mca keeps every region in memory); None where llvm-mca refuses an
    instruction."""
    from invar.data.bhive import label_texts

    out: list[int | None] = []
    for k in range(0, len(texts), chunk):
        out += [c for c, _ in label_texts(list(texts[k : k + chunk]), cpu, ITERATIONS)]
    return out


# ------------------------------------------------------------------ the sweep
@dataclass
class Finding:
    """One register-dependent slot group of a form on one CPU."""

    form: str
    cpu: str
    pattern: tuple[tuple[int, ...], ...]
    group: tuple[int, ...]
    #: the registers whose cycles differ from the most common value
    special: tuple[str, ...]
    #: cycles per register, per block shape and immediate
    cycles: dict[str, dict[str, int]] = field(default_factory=dict)


def sweep(forms: Sequence[Form], cpus: Sequence[str] = CPUS, *, evex: bool = False, log=None) -> dict:
    """Time every instance of every form on every CPU: the findings, and
    what was swept. Forms llvm-mc or a CPU's model refuses are counted apart."""
    by_form = {f.key: f for f in forms}
    insts: list[Instance] = [i for f in forms for i in instances(f, evex=evex)]
    bad = rejected([i.text for i in insts])
    insts = [i for k, i in enumerate(insts) if k not in bad]
    if log:
        log(f"{len(forms)} forms, {len(insts)} instances ({len(bad)} rejected by llvm-mc)")
    findings: list[Finding] = []
    refused: dict[str, list[str]] = {}
    blocks = 0
    for cpu in cpus:
        # one instance per form first: llvm-mca stops at an instruction its
        # model lacks, and finding each culprit costs a rerun
        first = {}
        for inst in insts:
            first.setdefault(inst.form, inst.text)
        ok = dict(zip(first, cycles(list(first.values()), cpu)))
        refused[cpu] = sorted(f for f, c in ok.items() if c is None)
        mine = [i for i in insts if ok.get(i.form) is not None]
        texts: list[str] = []
        for inst in mine:
            texts += [inst.text, chained(inst, by_form[inst.form])]
        blocks += len(texts)
        got = cycles(texts, cpu)
        table: dict = {}
        for k, inst in enumerate(mine):
            for shape, c in (("alone", got[2 * k]), ("chained", got[2 * k + 1])):
                if c is None:
                    continue
                key = (inst.form, inst.pattern, inst.group)
                table.setdefault(key, {}).setdefault(f"{shape} {inst.immediate or ''}".strip(), {})[inst.register] = c
        findings += judge(table, cpu)
        if log:
            log(
                f"{cpu}: {len(texts)} blocks, {len(refused[cpu])} forms refused, "
                f"{len({f.form for f in findings if f.cpu == cpu})} register-dependent forms"
            )
    return {
        "forms": len(forms),
        "instances": len(insts),
        "rejected": len(bad),
        "blocks": blocks,
        "findings": findings,
        "refused": refused,
    }


def judge(table: dict, cpu: str) -> list[Finding]:
    """The register-dependent slot groups of one CPU's timings."""
    out = []
    for (form, pattern, g), series in table.items():
        special: set[str] = set()
        for by_reg in series.values():
            if len(set(by_reg.values())) > 1:
                common = Counter(by_reg.values()).most_common(1)[0][0]
                special |= {r for r, c in by_reg.items() if c != common}
        if special:
            out.append(
                Finding(form, cpu, pattern, pattern[g], tuple(sorted(special)), {s: dict(v) for s, v in series.items()})
            )
    return out
