"""Which x86-64 instructions invar accepts.

Every instruction is checked before any analysis, so that a renaming or a
reordering is only ever computed for an instruction a CPU would run as its text
says. An invalid one is a :class:`~invar.errors.ParseError` located at the
offending operand, prefix or mnemonic. docs/formats.md lists the rules and
their limits; in short:

* **General-purpose integer instructions** (the table :data:`GP`) are checked
  exactly: arity, the kind of every operand (register, memory, immediate,
  fixed registers such as ``%cl`` and ``%dx``), register widths against each
  other and against the size suffix, immediate ranges, and the operand size
  when nothing spells it. String instructions, ``movabs`` and ``xlat`` accept
  only their fixed operands.
* **Every instruction**: at most one memory operand (string instructions
  aside), immediates only before the other operands, ``%ah``-style registers
  never beside a register or operand size that needs a REX prefix, address
  registers of one width, ``%rip`` without index, displacements in 32 bits,
  AVX-512 decorators (a write mask on the destination only and never
  ``%k0``, ``{z}`` only with a write mask and a register destination,
  broadcasts on memory only, gathers and scatters masked), vector registers
  16–31 and ``%zmm`` only in VEX/EVEX (``v…``) instructions, and prefixes
  only where they mean something (``lock`` on a read-modify-write of memory,
  ``rep`` on string instructions, ``rep ret``, ``rep nop``; see
  :func:`_check_prefixes`).
"""

from __future__ import annotations

import re

from ...errors import ParseError
from . import registers as R
from .semantics import stripped_suffix

#: words that prefix an instruction; a segment name written alone is a segment override
SEGMENT_WORDS = frozenset("cs ds es fs gs ss".split())
PREFIXES = frozenset(
    "lock rep repe repz repne repnz data16 data32 addr32 rex64 notrack bnd xacquire xrelease".split()
) | SEGMENT_WORDS

BWLQ = (8, 16, 32, 64)
WLQ = (16, 32, 64)
LQ = (32, 64)
_SUFFIX = {"b": 8, "w": 16, "l": 32, "q": 64}

# Operand patterns (AT&T order, sources first):
#   r   a general-purpose register of the operand size      m   memory
#   rm  either                                              i   an immediate of the operand size
#   i8  an 8-bit immediate          i16  a 16-bit one        cl, dx   that register
#   a   the accumulator of the operand size                 seg, ctrl, dbg   such a register
#   tgt a branch target             *rm  an indirect branch operand (``*%rax``, ``*(%rax)``)
_ALU = ((("i", "rm"), BWLQ), (("r", "rm"), BWLQ), (("m", "r"), BWLQ))
_UNARY = ((("rm",), BWLQ),)
_SHIFT = ((("rm",), BWLQ), (("i8", "rm"), BWLQ), (("cl", "rm"), BWLQ))
_NONE = (((), None),)
_CC = "o no b c nae ae nb nc e z ne nz be na a nbe s ns p pe np po l nge ge nl le ng g nle".split()

#: the general-purpose integer instructions: base mnemonic -> ((patterns, sizes), …)
GP: dict[str, tuple] = {}
for _m in "add or adc sbb and sub xor cmp test".split():
    GP[_m] = _ALU
GP["mov"] = _ALU + (
    (("seg", "r"), WLQ), (("seg", "m"), (16,)), (("r", "seg"), WLQ), (("m", "seg"), (16,)),
    (("ctrl", "r"), (64,)), (("r", "ctrl"), (64,)), (("dbg", "r"), (64,)), (("r", "dbg"), (64,)),
)
GP["xchg"] = ((("r", "rm"), BWLQ), (("m", "r"), BWLQ))
for _m in "inc dec neg not mul div idiv".split():
    GP[_m] = _UNARY
GP["imul"] = ((("rm",), BWLQ), (("rm", "r"), WLQ), (("i", "rm", "r"), WLQ), (("i", "r"), WLQ))
for _m in "shl sal shr sar rol ror rcl rcr".split():
    GP[_m] = _SHIFT
for _m in ("shld", "shrd"):
    GP[_m] = ((("i8", "r", "rm"), WLQ), (("cl", "r", "rm"), WLQ), (("r", "rm"), WLQ))
GP["lea"] = ((("m", "r"), WLQ),)
for _cc in _CC:
    GP["cmov" + _cc] = ((("rm", "r"), WLQ),)
    GP["set" + _cc] = ((("rm",), (8,)),)
    GP["j" + _cc] = ((("tgt",), None),)
for _m in ("bt", "bts", "btr", "btc"):
    GP[_m] = ((("r", "rm"), WLQ), (("i8", "rm"), WLQ))
for _m in ("bsf", "bsr", "lzcnt", "tzcnt", "popcnt"):
    GP[_m] = ((("rm", "r"), WLQ),)
GP["bswap"] = ((("r",), LQ),)
GP["xadd"] = GP["cmpxchg"] = ((("r", "rm"), BWLQ),)
GP["cmpxchg8b"] = GP["cmpxchg16b"] = ((("m",), None),)
GP["push"] = ((("rm",), (16, 64)), (("i",), (16, 64)), (("seg",), (16, 64)))
GP["pop"] = ((("rm",), (16, 64)), (("seg",), (16, 64)))
for _m in ("andn", "pdep", "pext", "mulx"):
    GP[_m] = ((("rm", "r", "r"), LQ),)
for _m in ("bextr", "bzhi", "shlx", "sarx", "shrx"):
    GP[_m] = ((("r", "rm", "r"), LQ),)
GP["rorx"] = ((("i8", "rm", "r"), LQ),)
for _m in ("blsi", "blsr", "blsmsk", "adcx", "adox"):
    GP[_m] = ((("rm", "r"), LQ),)
GP["movbe"] = ((("m", "r"), WLQ), (("r", "m"), WLQ))
GP["movnti"] = ((("r", "m"), LQ),)
GP["nop"] = (((), None), (("rm",), WLQ))
GP["ret"] = GP["lret"] = (((), (16, 64)), (("i16",), (16, 64)))
GP["enter"] = ((("i16", "i8"), None),)
GP["int"] = ((("i8",), None),)
GP["jmp"] = GP["call"] = ((("tgt",), (64,)), (("*rm",), (64,)))
for _m in ("loop", "loope", "loopne", "jrcxz", "jecxz"):
    GP[_m] = ((("tgt",), None),)
GP["in"] = ((("i8", "a"), (8, 16, 32)), (("dx", "a"), (8, 16, 32)))
GP["out"] = ((("a", "i8"), (8, 16, 32)), (("a", "dx"), (8, 16, 32)))
for _m in """cbw cwde cdqe cwd cdq cqo clc stc cmc cld std cli sti lahf sahf cpuid rdtsc rdtscp
        pause ud2 hlt leave pushf popf pushfq popfq int3 syscall xlatb lfence mfence sfence""".split():
    GP[_m] = _NONE

#: sign- and zero-extending moves: AT&T mnemonic -> (source bits, destination bits)
_EXTEND = {
    "movzbw": (8, 16), "movzbl": (8, 32), "movzbq": (8, 64), "movzwl": (16, 32), "movzwq": (16, 64),
    "movsbw": (8, 16), "movsbl": (8, 32), "movsbq": (8, 64), "movswl": (16, 32), "movswq": (16, 64),
    "movslq": (32, 64),
}
#: string instructions: family -> the operand lists they may spell (SI = (%rsi), DI = (%rdi))
_STRING_FORMS = {
    "movs": ((), ("SI", "DI")), "cmps": ((), ("DI", "SI")), "lods": ((), ("SI",), ("SI", "ACC")),
    "stos": ((), ("DI",), ("ACC", "DI")), "scas": ((), ("DI",), ("DI", "ACC")),
    "ins": ((), ("DX", "DI")), "outs": ((), ("SI", "DX")),
}
_STRING = re.compile(r"^(movs|cmps|lods|stos|scas|ins|outs)([bwlqd])$")

#: instructions that do not exist in 64-bit mode
_INVALID_64 = frozenset(
    """aaa aad aam aas daa das into bound pusha pushal pushaw popa popal popaw pushad popad les lds
    salc arpl jcxz""".split()
)
#: instructions ``lock`` may prefix (with a memory destination)
_LOCKABLE = frozenset(
    "add adc and btc btr bts cmpxchg cmpxchg8b cmpxchg16b dec inc neg not or sbb sub xadd xchg xor".split()
)
_BRANCH = re.compile(r"^(?:j[a-z]+|call|ret|lret|loop[a-z]*)$")


def _error(message: str, col: int) -> ParseError:
    return ParseError(message, col=col)


def segment_prefix(prefixes: list[tuple[str, int]]) -> str | None:
    """The segment a prefix word selects for memory operands (``fs``/``gs``;
    the others mean nothing in 64-bit mode), or None."""
    for p, _ in prefixes:
        if p in ("fs", "gs"):
            return p
    return None


def check(
    mnemonic: str, base: str, prefixes: list[tuple[str, int]], operands: list[dict],
    rounding: list[dict], col: int,
) -> None:
    """Raise a located :class:`ParseError` unless the instruction is valid.

    ``prefixes`` are (prefix, column) pairs, ``operands`` the parsed operands
    (see :func:`invar.frontends.x86.parse._operand`), ``rounding`` the
    ``{rn-sae}``-style operands, ``col`` the mnemonic's column."""
    if base in _INVALID_64 or mnemonic in _INVALID_64:
        raise _error(f"{mnemonic!r} is not valid in 64-bit mode", col)
    for o in operands:
        if o.get("indirect") and not (base in ("jmp", "call") or mnemonic in ("ljmp", "lcall")):
            raise _error(f"'*' marks an indirect jump or call, not an operand of {mnemonic!r}", o["col"])
        if o["kind"] == "mem":
            _check_memory(mnemonic, o)
    _check_registers(mnemonic, operands)
    string = _STRING.match(mnemonic)
    vector = any(o["kind"] == "reg" and o["reg"].cls in ("vec", "mmx") for o in operands)
    if string and string.group(2) == "d" and string.group(1) not in ("movs", "cmps"):
        string = None
    if string and not vector:
        _check_string(mnemonic, string.group(1), string.group(2), operands, col)
    elif mnemonic in _EXTEND or base in ("movzx", "movsx") and mnemonic in ("movzx", "movsx"):
        _check_extend(mnemonic, operands, col)
    elif base == "crc32":
        _check_crc32(mnemonic, operands, col)
    elif base in ("xlat", "xlatb") or mnemonic == "xlatb":
        _check_xlat(mnemonic, operands, col)
    elif not vector and _gp_name(mnemonic) is not None:
        gp, suffix = _gp_name(mnemonic)
        _check_gp(mnemonic, gp, suffix, operands, col)
    else:
        _check_generic(mnemonic, base, operands, col)
    _check_decorators(mnemonic, base, operands, rounding)
    _check_high_byte(mnemonic, base, operands, col)
    _check_prefixes(mnemonic, base, prefixes, operands)


# ------------------------------------------------------------------ operands
def _check_memory(mnemonic: str, o: dict) -> None:
    base, index = o.get("base"), o.get("index")
    if base is not None and base.cls == "ip" and index is not None:
        raise _error("a %rip-relative address takes no index register", o["col"])
    if base is not None and index is not None and index.cls == "gpr" and base.width != index.width:
        raise _error(f"address registers %{base.name} and %{index.name} differ in width", o["col"])
    disp = o.get("disp")
    if disp is None or disp == 0:
        return
    where = o["text"].split("(")[0].split(":")[-1].strip()
    if o.get("absolute"):
        if not mnemonic.startswith("movabs") and not -(1 << 31) <= disp < 1 << 31:
            raise _error(
                f"absolute address {where} does not fit in 32 bits "
                f"(only movabs with the accumulator takes a 64-bit address)",
                o["col"],
            )
        return
    address = base if base is not None else index
    high = 1 << 32 if address is not None and address.width == "32" else 1 << 31
    if not -(1 << 31) <= disp < high:
        raise _error(f"displacement {where} does not fit in 32 bits", o["col"])


def _check_registers(mnemonic: str, operands: list[dict]) -> None:
    evex_capable = mnemonic.startswith("v")
    for o in operands:
        if o["kind"] == "mem" and o.get("vsib") and "gather" not in mnemonic and "scatter" not in mnemonic:
            raise _error(f"a vector index register is only valid in gathers and scatters, not {mnemonic!r}", o["col"])
        regs = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
        for reg in regs:
            if reg.cls == "vec" and (int(reg.base) >= 16 or reg.width == "512") and not evex_capable:
                raise _error(f"%{reg.name} needs an AVX-512 (EVEX) instruction, not {mnemonic!r}", o["col"])
            if reg.cls == "mask" and not mnemonic.startswith(("k", "v")):
                raise _error(f"mask register %{reg.name} is not an operand of {mnemonic!r}", o["col"])


def _sized(bits: int) -> str:
    """``an 8-bit``, ``a 16-bit`` …"""
    return f"{'an' if bits == 8 else 'a'} {bits}-bit"


def _reg_name(o: dict) -> str:
    return "%" + o["reg"].name


def _is_gpr(o: dict) -> bool:
    return o["kind"] == "reg" and o["reg"].cls == "gpr"


def _matches(pattern: str, o: dict) -> bool:
    kind = o["kind"]
    if pattern == "r":
        return _is_gpr(o) and not o.get("indirect")
    if pattern == "m":
        return kind == "mem" and not o.get("vsib") and not o.get("indirect")
    if pattern == "rm":
        return _matches("r", o) or _matches("m", o)
    if pattern in ("i", "i8", "i16"):
        return kind == "imm"
    if pattern == "cl":
        return kind == "reg" and o["reg"].name == "cl"
    if pattern == "dx":
        return kind == "reg" and o["reg"].name == "dx"
    if pattern == "a":
        return _is_gpr(o) and o["reg"].base == "a" and not o["reg"].high_byte
    if pattern in ("seg", "ctrl", "dbg"):
        return kind == "reg" and o["reg"].cls == pattern
    if pattern == "tgt":
        return kind == "target"
    if pattern == "*rm":
        return bool(o.get("indirect")) and (kind in ("mem", "target") or _is_gpr(o))
    raise AssertionError(pattern)


def _describe(o: dict) -> str:
    if o["kind"] == "imm":
        return "an immediate"
    if o["kind"] in ("mem", "target"):
        return "a memory operand"
    return _reg_name(o)


# ---------------------------------------------------- general-purpose integer
def general_purpose(mnemonic: str) -> bool:
    """Is ``mnemonic`` a general-purpose integer instruction, checked exactly?"""
    m = mnemonic.lower()
    return _gp_name(m) is not None or m in _EXTEND or bool(_STRING.match(m)) or m.startswith(("crc32", "xlat"))


def _gp_name(mnemonic: str) -> tuple[str, str] | None:
    """(GP base, size suffix) of a mnemonic, or None when it is not one."""
    if mnemonic in GP:
        return mnemonic, ""
    if mnemonic in ("cbtw", "cwtl", "cltq", "cwtd", "cltd", "cqto"):
        return {"cbtw": "cbw", "cwtl": "cwde", "cltq": "cdqe", "cwtd": "cwd", "cltd": "cdq", "cqto": "cqo"}[mnemonic], ""
    if mnemonic.startswith("movabs"):
        return mnemonic, ""
    if mnemonic in ("ljmp", "lcall", "iret", "iretq", "iretd", "sysret", "sysretq", "lretq", "lretl", "lretw"):
        return None
    if mnemonic[-1] in _SUFFIX and mnemonic[:-1] in GP:
        return mnemonic[:-1], mnemonic[-1]
    return None


def _check_gp(mnemonic: str, gp: str, suffix: str, operands: list[dict], col: int) -> None:
    if gp.startswith("movabs"):
        _check_movabs(mnemonic, operands, col)
        return
    forms = GP[gp]
    n = len(operands)
    arity = [(p, s) for p, s in forms if len(p) == n]
    if not arity:
        counts = sorted({len(p) for p, _ in forms})
        want = " or ".join(str(c) for c in counts)
        if n > max(counts):
            raise _error(f"{mnemonic!r} takes {want} operand{'s' if counts != [1] else ''}, not {n}", operands[max(counts)]["col"])
        raise _error(f"{mnemonic!r} takes {want} operand{'s' if counts != [1] else ''}, not {n}", col)
    kinds = [(p, s) for p, s in arity if all(_matches(q, o) for q, o in zip(p, operands))]
    if not kinds:
        _explain_kinds(mnemonic, arity, operands, col)
    first_error = None
    for patterns, sizes in kinds:
        try:
            _check_sizes(mnemonic, gp, suffix, patterns, sizes, operands, col)
            return
        except ParseError as err:
            first_error = first_error or err
    raise first_error


def _explain_kinds(mnemonic: str, arity: list, operands: list[dict], col: int):
    memory = [o for o in operands if o["kind"] == "mem"]
    if len(memory) > 1:
        raise _error(f"{mnemonic!r} takes at most one memory operand", memory[1]["col"])
    for k, o in enumerate(operands):
        if any(_matches(p[k], o) for p, _ in arity):
            continue
        wanted = {p[k] for p, _ in arity}
        if o["kind"] == "imm":
            if k == len(operands) - 1:
                raise _error(f"an immediate cannot be the destination of {mnemonic!r}", o["col"])
            raise _error(f"operand {k + 1} of {mnemonic!r} cannot be an immediate", o["col"])
        if wanted <= {"cl", "i8"} or wanted == {"cl"}:
            raise _error(f"the count of {mnemonic!r} is %cl or an immediate, not {_describe(o)}", o["col"])
        if "dx" in wanted and "a" not in wanted:
            raise _error(f"the port of {mnemonic!r} is %dx or an immediate, not {_describe(o)}", o["col"])
        if wanted == {"a"}:
            raise _error(f"{mnemonic!r} reads or writes the accumulator (%al, %ax, %eax), not {_describe(o)}", o["col"])
        if wanted <= {"tgt", "*rm"}:
            if _is_gpr(o) or o["kind"] == "mem":
                raise _error(f"an indirect {mnemonic!r} needs '*' before its operand", o["col"])
        if o["kind"] == "mem" and o.get("vsib"):
            raise _error(f"{mnemonic!r} takes no vector index", o["col"])
        if o["kind"] == "mem" and not wanted & {"m", "rm", "*rm"}:
            raise _error(f"operand {k + 1} of {mnemonic!r} must be a register, not memory", o["col"])
        if o["kind"] == "reg" and not wanted & {"r", "rm", "*rm"}:
            if wanted == {"m"}:
                raise _error(f"operand {k + 1} of {mnemonic!r} must be memory, not {_describe(o)}", o["col"])
        if o["kind"] == "reg" and o["reg"].cls != "gpr":
            raise _error(f"{_describe(o)} is not a general-purpose register ({mnemonic!r})", o["col"])
        raise _error(f"operand {k + 1} of {mnemonic!r} cannot be {_describe(o)}", o["col"])
    raise _error(f"invalid operands for {mnemonic!r}", col)


#: the operand size of instructions that need none spelled
_DEFAULT_SIZE = {"push": 64, "pop": 64, "jmp": 64, "call": 64, "ret": 64, "lret": 32, "bt": 32, "bts": 32,
                 "btr": 32, "btc": 32}


def _check_sizes(mnemonic, gp, suffix, patterns, sizes, operands, col) -> None:
    sized = [o for p, o in zip(patterns, operands) if p in ("r", "a") or (p in ("rm", "*rm") and _is_gpr(o))]
    size = _SUFFIX.get(suffix)
    if size is not None and sizes is None:
        raise _error(f"{mnemonic!r}: {gp!r} takes no size suffix", col)
    if size is None and sized:
        size = sized[0]["bits"]
    if size is None and sizes is not None:
        if len(sizes) == 1:
            size = sizes[0]
        elif gp in _DEFAULT_SIZE:
            size = _DEFAULT_SIZE[gp]
        elif any(p in ("rm", "m", "i") for p in patterns):
            raise _error(
                f"{mnemonic!r} needs a size suffix here: nothing else gives the operand size "
                f"({', '.join(gp + k for k, v in _SUFFIX.items() if v in sizes)})",
                col,
            )
    for o in sized:
        if o["bits"] != size:
            if suffix:
                raise _error(f"{_reg_name(o)} is {_sized(o['bits'])} register; {mnemonic!r} operates on {size} bits", o["col"])
            raise _error(f"operand sizes disagree: {_reg_name(sized[0])} and {_reg_name(o)}", o["col"])
    if sizes is not None and size not in sizes:
        if size == 32 and gp in ("push", "pop", "jmp", "call", "ret"):
            raise _error(f"{mnemonic!r} with 32-bit operands is not valid in 64-bit mode", col)
        where = sized[0]["col"] if sized and not suffix else col
        raise _error(f"{gp!r} has no {size}-bit form", where)
    for p, o in zip(patterns, operands):
        if p == "seg" and gp in ("push", "pop") and o["reg"].name not in ("fs", "gs"):
            raise _error(f"{gp} %{o['reg'].name} is not valid in 64-bit mode (only %fs and %gs)", o["col"])
        if p == "seg" and gp == "mov" and o is operands[-1] and o["reg"].name == "cs":
            raise _error("%cs cannot be loaded with mov", o["col"])
        if o["kind"] == "imm" and o.get("value") is not None:
            _check_immediate(mnemonic, gp, p, size, o, operands)


def _check_immediate(mnemonic: str, gp: str, pattern: str, size: int | None, o: dict, operands: list[dict]) -> None:
    value = o["value"]
    if pattern == "i8":
        low, high = -(1 << 7), 1 << 8
    elif pattern == "i16" or (size == 16 and pattern == "i"):
        low, high = -(1 << 15), 1 << 16
    elif size == 8:
        low, high = -(1 << 7), 1 << 8
    elif size == 32:
        low, high = -(1 << 31), 1 << 32
    elif size == 64 and gp == "mov" and _is_gpr(operands[-1]):
        low, high = -(1 << 63), 1 << 64  # becomes movabs
    else:  # 64-bit operations sign-extend a 32-bit immediate
        low, high = -(1 << 31), 1 << 31
        if (1 << 64) - (1 << 31) <= value < 1 << 64:
            return
    if not low <= value < high:
        if high == 1 << 31:
            what = "sign-extended 32-bit immediate"
        else:
            what = f"{8 if pattern == 'i8' else 16 if pattern == 'i16' else size}-bit immediate"
        raise _error(f"immediate {o['text']} does not fit in the {what} of {mnemonic!r}", o["col"])


def _check_movabs(mnemonic: str, operands: list[dict], col: int) -> None:
    suffix = mnemonic[len("movabs"):]
    if suffix not in ("", "b", "w", "l", "q"):
        raise _error(f"unknown instruction {mnemonic!r}", col)
    if len(operands) != 2:
        raise _error(f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"])
    src, dst = operands
    size = _SUFFIX.get(suffix)
    if src["kind"] == "imm":
        if not _is_gpr(dst) or dst["bits"] != 64 or size not in (None, 64):
            raise _error(f"{mnemonic!r} with an immediate writes a 64-bit register", dst["col"])
        return
    mem, acc = (src, dst) if src["kind"] == "mem" else (dst, src)
    if mem["kind"] != "mem" or not mem.get("absolute"):
        raise _error(f"{mnemonic!r} moves an immediate or an absolute address", mem["col"])
    if not _matches("a", acc):
        raise _error(f"{mnemonic!r} with an absolute address takes the accumulator (%al, %ax, %eax, %rax), not {_describe(acc)}", acc["col"])
    if size is not None and acc["bits"] != size:
        raise _error(f"{_reg_name(acc)} is {_sized(acc['bits'])} register; {mnemonic!r} operates on {size} bits", acc["col"])


def _check_extend(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) != 2:
        raise _error(f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"])
    src, dst = operands
    if not _is_gpr(dst):
        raise _error(f"the destination of {mnemonic!r} is a general-purpose register, not {_describe(dst)}", dst["col"])
    if not (_is_gpr(src) or src["kind"] == "mem"):
        raise _error(f"the source of {mnemonic!r} is a register or memory, not {_describe(src)}", src["col"])
    if mnemonic in _EXTEND:
        s, d = _EXTEND[mnemonic]
    else:  # movzx/movsx: sizes from the registers
        if not _is_gpr(src):
            raise _error(f"{mnemonic!r} from memory needs a size suffix (movzbl, movzwl …)", col)
        s, d = src["bits"], dst["bits"]
        if s not in (8, 16) or d <= s:
            raise _error(f"{mnemonic!r} cannot extend {_reg_name(src)} into {_reg_name(dst)}", src["col"])
    if _is_gpr(src) and src["bits"] != s:
        raise _error(f"{_reg_name(src)} is {_sized(src['bits'])} register; {mnemonic!r} reads {s} bits", src["col"])
    if dst["bits"] != d:
        raise _error(f"{_reg_name(dst)} is {_sized(dst['bits'])} register; {mnemonic!r} writes {d} bits", dst["col"])


def _check_crc32(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) != 2:
        raise _error(f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"])
    src, dst = operands
    if not _is_gpr(dst) or dst["bits"] not in (32, 64):
        raise _error(f"the destination of {mnemonic!r} is a 32- or 64-bit register", dst["col"])
    if not (_is_gpr(src) or src["kind"] == "mem"):
        raise _error(f"the source of {mnemonic!r} is a register or memory, not {_describe(src)}", src["col"])
    size = _SUFFIX.get(mnemonic[len("crc32"):])
    if size is None:
        if not _is_gpr(src):
            raise _error(f"{mnemonic!r} from memory needs a size suffix (crc32b, crc32w, crc32l, crc32q)", col)
        size = src["bits"]
    if _is_gpr(src) and src["bits"] != size:
        raise _error(f"{_reg_name(src)} is {_sized(src['bits'])} register; {mnemonic!r} reads {size} bits", src["col"])
    if size == 64 and dst["bits"] != 64:
        raise _error(f"{mnemonic!r} with a 64-bit source writes a 64-bit register", dst["col"])
    if size in (16, 32) and dst["bits"] != 32:
        raise _error(f"{mnemonic!r} with {_sized(size)} source writes a 32-bit register", dst["col"])


def _fixed_memory(o: dict, regs: tuple[str, ...]) -> bool:
    base = o.get("base")
    return (
        o["kind"] == "mem" and base is not None and base.name in regs and o.get("index") is None
        and not o.get("disp")
    )


def _check_string(mnemonic: str, family: str, letter: str, operands: list[dict], col: int) -> None:
    size = {"b": 8, "w": 16, "l": 32, "d": 32, "q": 64}[letter]
    if family in ("ins", "outs") and size == 64:
        raise _error(f"unknown instruction {mnemonic!r}", col)
    shapes = _STRING_FORMS[family]
    if not any(len(s) == len(operands) for s in shapes):
        counts = " or ".join(str(len(s)) for s in shapes)
        raise _error(f"{mnemonic!r} takes {counts} operands, not {len(operands)}", col)
    shape = next(s for s in shapes if len(s) == len(operands))
    widths = set()
    for role, o in zip(shape, operands):
        if role == "SI":
            if not _fixed_memory(o, ("rsi", "esi")):
                raise _error(f"the source of {mnemonic!r} is always (%rsi)", o["col"])
            widths.add(o["base"].width)
        elif role == "DI":
            if not _fixed_memory(o, ("rdi", "edi")) or o.get("seg") not in (None, "es"):
                raise _error(f"the destination of {mnemonic!r} is always %es:(%rdi)", o["col"])
            widths.add(o["base"].width)
        elif role == "ACC":
            if not (_matches("a", o) and o["bits"] == size):
                acc = {8: "%al", 16: "%ax", 32: "%eax", 64: "%rax"}[size]
                raise _error(f"the register operand of {mnemonic!r} is always {acc}", o["col"])
        elif role == "DX":
            if not _matches("dx", o):
                raise _error(f"the port of {mnemonic!r} is always %dx", o["col"])
    if len(widths) > 1:
        raise _error(f"the address registers of {mnemonic!r} differ in width", operands[-1]["col"])


def _check_xlat(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) > 1:
        raise _error(f"{mnemonic!r} takes 0 or 1 operands, not {len(operands)}", operands[1]["col"])
    if operands and not _fixed_memory(operands[0], ("rbx", "ebx")):
        raise _error(f"the table of {mnemonic!r} is always (%rbx)", operands[0]["col"])


# ------------------------------------------------------------------- generic
#: instructions that mix MMX and XMM registers
_MMX_XMM = frozenset(
    "movq2dq movdq2q cvtpi2ps cvtps2pi cvttps2pi cvtpi2pd cvtpd2pi cvttpd2pi".split()
)
#: AVX instructions without an EVEX form: no %xmm16-31, no masks or other decorators
VEX_ONLY = frozenset(
    """vblendvps vblendvpd vpblendvb vblendps vblendpd vpblendd vpblendw vbroadcastf128 vbroadcasti128
    vinsertf128 vinserti128 vextractf128 vextracti128 vperm2f128 vperm2i128 vmaskmovps vmaskmovpd
    vpmaskmovd vpmaskmovq vtestps vtestpd vptest vzeroupper vzeroall vphaddw vphaddd vphaddsw vphsubw
    vphsubd vphsubsw vpsignb vpsignw vpsignd vhaddps vhaddpd vhsubps vhsubpd vaddsubps vaddsubpd vdpps
    vdppd vroundps vroundpd vroundss vroundsd vlddqu vmovmskps vmovmskpd vpmovmskb vpcmpestri
    vpcmpestrm vpcmpistri vpcmpistrm vmpsadbw vrcpps vrcpss vrsqrtps vrsqrtss vldmxcsr vstmxcsr
    vmaskmovdqu vaesimc vaeskeygenassist""".split()
)
_CONVERT_FROM_GPR = re.compile(r"^v?cvt(?:u?si2s[sdh]|si2s[sd])([lq])$")


#: vector and mask instructions that take a general-purpose register operand
_VECTOR_GPR = re.compile(r"^(?:v?(?:movd|movq|cvt|pextr|pinsr|extractps|pmovmsk|movmsk)|vpbroadcast|kmov|vcvt)")


def _check_vector(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    regs = [o for o in operands if o["kind"] == "reg"]
    classes = {o["reg"].cls for o in regs}
    if "mmx" in classes and "vec" in classes and base not in _MMX_XMM:
        o = next(o for o in regs if o["reg"].cls == "mmx")
        raise _error(f"{mnemonic!r} does not mix MMX and XMM registers (%{o['reg'].name})", o["col"])
    if not classes & {"vec", "mmx", "mask"}:
        return
    for o in regs:
        if o["reg"].cls == "gpr" and o["bits"] < 32:
            raise _error(f"{_reg_name(o)}: vector instructions take 32- or 64-bit general-purpose registers", o["col"])
        if o["reg"].cls == "gpr" and not _VECTOR_GPR.match(mnemonic) and _gp_name(mnemonic) is None:
            raise _error(f"{_reg_name(o)} is not an operand of {mnemonic!r}", o["col"])
    if not classes & {"vec", "mmx"}:
        return
    if len(operands) < 2:
        raise _error(f"{mnemonic!r} takes at least 2 operands", col)
    if not mnemonic.startswith("v"):  # legacy SSE and MMX: destination is also a source
        immediates = sum(o["kind"] == "imm" for o in operands)
        if len(operands) > 3 + (immediates == 2):
            raise _error(f"{mnemonic!r} takes at most 3 operands", operands[3]["col"])
        first = operands[0]
        if len(operands) == 3 and first["kind"] != "imm" and not (first["kind"] == "reg" and first["reg"].name == "xmm0"):
            raise _error(f"a third operand of {mnemonic!r} comes first and is an immediate or %xmm0", first["col"])
        if operands[-1]["kind"] == "mem" and not mnemonic.startswith(("mov", "pextr", "extractps")):
            raise _error(f"{mnemonic!r} cannot write memory", operands[-1]["col"])
    mmx_memory = mnemonic == "mov" and classes == {"mmx"} and len(regs) == 1  # llvm-mc reads it as movq
    if _gp_name(mnemonic) is not None and mnemonic != "movq" and not mmx_memory:
        o = next(o for o in regs if o["reg"].cls in ("vec", "mmx"))
        raise _error(f"{_reg_name(o)} is not an operand of {mnemonic!r}", o["col"])
    if mnemonic in ("movq", "movd"):
        for o in operands:
            if o["kind"] == "imm":
                raise _error(f"{mnemonic!r} with a vector register takes no immediate", o["col"])
        for o in regs:
            if o["reg"].cls == "gpr" and o["bits"] != 64 and mnemonic == "movq":
                raise _error(f"{_reg_name(o)}: 'movq' moves 64 bits (movd moves 32)", o["col"])
            if o["reg"].cls == "vec" and o["reg"].width != "128":
                raise _error(f"{_reg_name(o)}: {mnemonic!r} moves to or from an %xmm register", o["col"])
    hit = _CONVERT_FROM_GPR.match(mnemonic)
    if hit:
        size = _SUFFIX[hit.group(1)]
        for o in regs:
            if o["reg"].cls == "gpr" and o["bits"] != size:
                raise _error(f"{_reg_name(o)} is {_sized(o['bits'])} register; {mnemonic!r} converts {size} bits", o["col"])
    if base in VEX_ONLY or mnemonic in VEX_ONLY:
        for o in operands:
            regs_of = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
            for reg in regs_of:
                if reg.cls == "vec" and (int(reg.base) >= 16 or reg.width == "512"):
                    raise _error(f"{mnemonic!r} has no EVEX form: %{reg.name} cannot be encoded", o["col"])
            if o.get("decorators"):
                raise _error(f"{mnemonic!r} has no EVEX form: {o['decorators'][0][0]} cannot be encoded", o["decorators"][0][1])


def _check_generic(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    suffix = stripped_suffix(mnemonic)
    if suffix and not (base.startswith("f") or re.search(r"2u?si|u?si2", base)):
        # only x87 (flds, fildll) and conversions (cvtsi2sdq) spell a size
        raise _error(f"unknown instruction {mnemonic!r} ({base!r} takes no size suffix)", col)
    _check_vector(mnemonic, base, operands, col)
    memory = [o for o in operands if o["kind"] == "mem"]
    if len(memory) > 1:
        raise _error(f"{mnemonic!r} takes at most one memory operand", memory[1]["col"])
    seen_other = False
    for k, o in enumerate(operands):
        if o["kind"] == "imm" and seen_other and base != "out":
            if k == len(operands) - 1:
                raise _error(f"an immediate cannot be the destination of {mnemonic!r}", o["col"])
            raise _error(f"an immediate comes before the other operands of {mnemonic!r}", o["col"])
        seen_other |= o["kind"] != "imm"
    if "gather" in mnemonic or "scatter" in mnemonic:
        if not any(o.get("vsib") for o in memory) and not mnemonic.startswith(("vgatherpf", "vscatterpf")):
            raise _error(f"{mnemonic!r} addresses memory with a vector index", memory[0]["col"] if memory else col)


def _check_decorators(mnemonic: str, base: str, operands: list[dict], rounding: list[dict]) -> None:
    last = len(operands) - 1
    masks = zero = 0
    for k, o in enumerate(operands):
        for deco, at in o.get("decorators", ()):
            if not mnemonic.startswith("v"):
                raise _error(f"{deco} needs an AVX-512 instruction, not {mnemonic!r}", at)
            if deco.startswith("{1to"):
                if o["kind"] != "mem" or k == last and len(operands) > 1 and not mnemonic.startswith("vfpclass"):
                    raise _error(f"a broadcast {deco} applies to a memory source operand", at)
                continue
            if k != last:
                raise _error(f"{deco} applies to the destination (the last operand)", at)
            if deco.startswith("{%k"):
                masks += 1
                if masks > 1:
                    raise _error("only one write mask", at)
                if deco == "{%k0}":
                    raise _error("%k0 cannot be a write mask (k0 means no masking)", at + 1)
            elif deco == "{z}":
                zero += 1
                if zero > 1:
                    raise _error("{z} given twice", at)
                if o["kind"] == "mem":
                    raise _error("zero-masking {z} cannot apply to a memory destination", at)
                if o["kind"] == "reg" and o["reg"].cls == "mask":
                    raise _error("zero-masking {z} cannot apply to a mask destination", at)
    if zero and not masks:
        at = next(a for o in operands for d, a in o.get("decorators", ()) if d == "{z}")
        raise _error("zero-masking {z} needs a write mask {%k1}-{%k7}", at)
    for o in rounding:
        if not mnemonic.startswith("v"):
            raise _error(f"rounding control needs an AVX-512 instruction, not {mnemonic!r}", o["col"])
        if any(p["kind"] == "mem" for p in operands):
            raise _error("rounding control applies to register operands only", o["col"])
    evex_gather = mnemonic.startswith(("vgather", "vpgather", "vscatter", "vpscatter")) and not mnemonic.startswith(
        ("vgatherpf", "vscatterpf")
    )
    if evex_gather:
        vsib = next((o for o in operands if o.get("vsib")), None)
        if len(operands) == 2:
            if not masks:
                raise _error(f"{mnemonic!r} needs a write mask {{%k1}}-{{%k7}}", operands[-1]["col"])
            other = operands[0] if operands[1] is vsib else operands[1]
            gather = "gather" in mnemonic
            if gather and vsib is not None and other["kind"] == "reg" and other["reg"].referent == vsib["index"].referent:
                raise _error(f"the index and destination registers of {mnemonic!r} must differ", other["col"])
        elif len(operands) == 3 and vsib is not None:
            regs = [o["reg"].referent for o in operands if o["kind"] == "reg"] + [vsib["index"].referent]
            if len(set(regs)) != len(regs):
                raise _error(f"the mask, index and destination registers of {mnemonic!r} must differ", operands[-1]["col"])


def _check_high_byte(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    high = [o for o in operands if o["kind"] == "reg" and o["reg"].high_byte]
    if not high:
        return
    name = _reg_name(high[0])
    for o in operands:
        regs = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
        for reg in regs:
            if reg.needs_rex:
                raise _error(f"{name} cannot be used in an instruction that needs a REX prefix (%{reg.name})", o["col"])
    gp = _gp_name(mnemonic)
    wide = mnemonic in ("movzbq", "movsbq") or (gp is not None and gp[1] == "q") or any(
        _is_gpr(o) and o["bits"] == 64 for o in operands
    )
    if wide:
        raise _error(f"{name} cannot be used with a 64-bit operand size (it needs a REX prefix)", high[0]["col"])


# ------------------------------------------------------------------ prefixes
_REP_STRING = ("movs", "lods", "stos", "ins", "outs")
_REPE_STRING = ("cmps", "scas")


def _check_prefixes(mnemonic: str, base: str, prefixes: list[tuple[str, int]], operands: list[dict]) -> None:
    """Prefixes only where they mean something. ``rep`` on the instructions it
    repeats (and ``rep ret``/``rep nop``, which compilers print); ``repe``/
    ``repne`` on ``cmps``/``scas``, ``repne`` also as the ``bnd`` prefix of
    branches; ``lock`` on a read-modify-write of memory; ``xacquire``/
    ``xrelease`` with a locked instruction (``xrelease`` also on a store);
    ``notrack`` on an indirect jump or call; ``bnd`` on branches; ``data16``,
    ``rex64`` and ``addr32`` where they change nothing invar models (nops,
    calls, ``data16`` before a 64-bit ``lea``: the TLS sequences); segment
    words anywhere (``fs``/``gs`` select the segment of memory operands)."""
    names = [p for p, _ in prefixes]
    string = _STRING.match(mnemonic)
    family = string.group(1) if string and not any(o["kind"] == "reg" and o["reg"].cls == "vec" for o in operands) else None
    branch = bool(_BRANCH.match(base)) or base in ("jmp", "call")
    nop = base in ("nop", "pause")
    mem_dest = bool(operands) and operands[-1]["kind"] == "mem"
    reps = [p for p in names if p.startswith("rep")]
    if len(set(reps)) > 1 or ("xacquire" in names and "xrelease" in names):
        raise _error(f"conflicting prefixes {' and '.join(sorted(set(names)))}", prefixes[-1][1])
    segments = [p for p in names if p in SEGMENT_WORDS]
    if len(set(segments)) > 1:
        raise _error(f"two segment overrides ({' and '.join(sorted(set(segments)))})", prefixes[-1][1])
    for o in operands:
        if segments and o["kind"] == "mem" and o.get("seg") not in (None, segments[0]):
            if family is not None and o.get("seg") == "es" and _fixed_memory(o, ("rdi", "edi")):
                continue  # a string destination is always %es: no prefix changes it
            raise _error(f"two segment overrides ({segments[0]} and %{o['seg']})", o["col"])
    for p, at in prefixes:
        ok = True
        if p in ("rep", "repe", "repz"):
            if family in _REP_STRING:
                ok = p == "rep"
            else:  # rep ret (a branch-predictor habit), rep nop (pause)
                ok = family in _REPE_STRING or base == "ret" or (mnemonic == "nop" and not operands and names == [p])
            why = "repeats string instructions (movs, stos, lods, ins, outs; repe: cmps, scas)"
        elif p in ("repne", "repnz"):
            ok = family in _REPE_STRING or branch
            why = "repeats cmps and scas (or marks a bnd branch)"
        elif p == "lock":
            ok = base in _LOCKABLE and (mem_dest or base == "xchg" and any(o["kind"] == "mem" for o in operands))
            why = "applies to a read-modify-write of memory (add, adc, and, btc, btr, bts, cmpxchg, dec, inc, neg, not, or, sbb, sub, xadd, xchg, xor)"
        elif p == "xacquire":
            ok = "lock" in names or base == "xchg" and any(o["kind"] == "mem" for o in operands)
            why = "applies to a locked instruction or xchg with memory"
        elif p == "xrelease":
            ok = "lock" in names or base == "xchg" and any(o["kind"] == "mem" for o in operands) or (
                base == "mov" and mem_dest and operands[0]["kind"] in ("reg", "imm")
            )
            why = "applies to a locked instruction, xchg with memory or a store"
        elif p == "notrack":
            ok = base in ("jmp", "call") and bool(operands) and bool(operands[0].get("indirect"))
            why = "applies to an indirect jmp or call"
        elif p == "bnd":
            ok = branch
            why = "applies to branches"
        elif p == "data32":
            ok = False
            why = "does not exist in 64-bit mode"
        elif p in ("data16", "rex64"):
            ok = nop or base == "call" or (
                p == "data16" and base == "lea" and bool(operands) and _is_gpr(operands[-1]) and operands[-1]["bits"] == 64
            )
            why = "changes the operand size; invar accepts it only on nops, calls and 64-bit lea"
        elif p == "addr32":
            ok = nop or base in ("call", "jmp")
            why = "changes the address size; invar accepts it only on nops, calls and jumps"
        else:
            continue  # segment words
        if not ok:
            raise _error(f"prefix {p!r} {why}; not {mnemonic!r}", at)
