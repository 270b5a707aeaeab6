"""The general-purpose integer instructions, checked exactly.

:data:`GP` lists every form of each instruction: its operand patterns (AT&T
order, sources first) and the operand sizes it has. An instruction is valid
when a form of its arity matches the kinds of its operands and one operand
size fits the suffix and every sized register. String instructions, the
extending moves, ``crc32``, ``xlat`` and ``movabs`` are checked by their own
rules: they accept only their fixed operands.
"""

from __future__ import annotations

from ...errors import ParseError
from .operands import STRING, SUFFIX, describe, error, fixed_memory, is_gpr, matches, reg_name, sized

BWLQ = (8, 16, 32, 64)
WLQ = (16, 32, 64)
LQ = (32, 64)

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
    (("seg", "r"), WLQ),
    (("seg", "m"), (16,)),
    (("r", "seg"), WLQ),
    (("m", "seg"), (16,)),
    (("ctrl", "r"), (64,)),
    (("r", "ctrl"), (64,)),
    (("dbg", "r"), (64,)),
    (("r", "dbg"), (64,)),
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
    "movzbw": (8, 16),
    "movzbl": (8, 32),
    "movzbq": (8, 64),
    "movzwl": (16, 32),
    "movzwq": (16, 64),
    "movsbw": (8, 16),
    "movsbl": (8, 32),
    "movsbq": (8, 64),
    "movswl": (16, 32),
    "movswq": (16, 64),
    "movslq": (32, 64),
}
#: string instructions: family -> the operand lists they may spell (SI = (%rsi), DI = (%rdi))
_STRING_FORMS = {
    "movs": ((), ("SI", "DI")),
    "cmps": ((), ("DI", "SI")),
    "lods": ((), ("SI",), ("SI", "ACC")),
    "stos": ((), ("DI",), ("ACC", "DI")),
    "scas": ((), ("DI",), ("DI", "ACC")),
    "ins": ((), ("DX", "DI")),
    "outs": ((), ("SI", "DX")),
}


#: the operand size of instructions that need none spelled
_DEFAULT_SIZE = {
    "push": 64,
    "pop": 64,
    "jmp": 64,
    "call": 64,
    "ret": 64,
    "lret": 32,
    "bt": 32,
    "bts": 32,
    "btr": 32,
    "btc": 32,
}


def general_purpose(mnemonic: str) -> bool:
    """Is ``mnemonic`` a general-purpose integer instruction, checked exactly?"""
    m = mnemonic.lower()
    return gp_name(m) is not None or m in _EXTEND or bool(STRING.match(m)) or m.startswith(("crc32", "xlat"))


def gp_name(mnemonic: str) -> tuple[str, str] | None:
    """(GP base, size suffix) of a mnemonic, or None when it is not one."""
    if mnemonic in GP:
        return mnemonic, ""
    if mnemonic in ("cbtw", "cwtl", "cltq", "cwtd", "cltd", "cqto"):
        return {"cbtw": "cbw", "cwtl": "cwde", "cltq": "cdqe", "cwtd": "cwd", "cltd": "cdq", "cqto": "cqo"}[
            mnemonic
        ], ""
    if mnemonic.startswith("movabs"):
        return mnemonic, ""
    if mnemonic in ("ljmp", "lcall", "iret", "iretq", "iretd", "sysret", "sysretq", "lretq", "lretl", "lretw"):
        return None
    if mnemonic[-1] in SUFFIX and mnemonic[:-1] in GP:
        return mnemonic[:-1], mnemonic[-1]
    return None


def check_instruction(mnemonic: str, base: str, operands: list[dict], col: int) -> bool:
    """Check ``mnemonic`` exactly if it is a general-purpose integer
    instruction (raising a located error when it is invalid); False when it
    is not one (then only the generic rules apply)."""
    vector = any(o["kind"] == "reg" and o["reg"].cls in ("vec", "mmx") for o in operands)
    string = STRING.match(mnemonic)
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
    elif not vector and gp_name(mnemonic) is not None:
        _check_forms(mnemonic, *gp_name(mnemonic), operands, col)
    else:
        return False
    return True


def _check_forms(mnemonic: str, gp: str, suffix: str, operands: list[dict], col: int) -> None:
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
            raise error(
                f"{mnemonic!r} takes {want} operand{'s' if counts != [1] else ''}, not {n}",
                operands[max(counts)]["col"],
            )
        raise error(f"{mnemonic!r} takes {want} operand{'s' if counts != [1] else ''}, not {n}", col)
    kinds = [(p, s) for p, s in arity if all(matches(q, o) for q, o in zip(p, operands))]
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
        raise error(f"{mnemonic!r} takes at most one memory operand", memory[1]["col"])
    for k, o in enumerate(operands):
        if any(matches(p[k], o) for p, _ in arity):
            continue
        wanted = {p[k] for p, _ in arity}
        if o["kind"] == "imm":
            if k == len(operands) - 1:
                raise error(f"an immediate cannot be the destination of {mnemonic!r}", o["col"])
            raise error(f"operand {k + 1} of {mnemonic!r} cannot be an immediate", o["col"])
        if wanted <= {"cl", "i8"} or wanted == {"cl"}:
            raise error(f"the count of {mnemonic!r} is %cl or an immediate, not {describe(o)}", o["col"])
        if "dx" in wanted and "a" not in wanted:
            raise error(f"the port of {mnemonic!r} is %dx or an immediate, not {describe(o)}", o["col"])
        if wanted == {"a"}:
            raise error(f"{mnemonic!r} reads or writes the accumulator (%al, %ax, %eax), not {describe(o)}", o["col"])
        if wanted <= {"tgt", "*rm"}:
            if is_gpr(o) or o["kind"] == "mem":
                raise error(f"an indirect {mnemonic!r} needs '*' before its operand", o["col"])
        if o["kind"] == "mem" and o.get("vsib"):
            raise error(f"{mnemonic!r} takes no vector index", o["col"])
        if o["kind"] == "mem" and not wanted & {"m", "rm", "*rm"}:
            raise error(f"operand {k + 1} of {mnemonic!r} must be a register, not memory", o["col"])
        if o["kind"] == "reg" and not wanted & {"r", "rm", "*rm"}:
            if wanted == {"m"}:
                raise error(f"operand {k + 1} of {mnemonic!r} must be memory, not {describe(o)}", o["col"])
        if o["kind"] == "reg" and o["reg"].cls != "gpr":
            raise error(f"{describe(o)} is not a general-purpose register ({mnemonic!r})", o["col"])
        raise error(f"operand {k + 1} of {mnemonic!r} cannot be {describe(o)}", o["col"])
    raise error(f"invalid operands for {mnemonic!r}", col)


def _check_sizes(mnemonic, gp, suffix, patterns, sizes, operands, col) -> None:
    sized_regs = [o for p, o in zip(patterns, operands) if p in ("r", "a") or (p in ("rm", "*rm") and is_gpr(o))]
    size = SUFFIX.get(suffix)
    if size is not None and sizes is None:
        raise error(f"{mnemonic!r}: {gp!r} takes no size suffix", col)
    if size is None and sized_regs:
        size = sized_regs[0]["bits"]
    if size is None and sizes is not None:
        if len(sizes) == 1:
            size = sizes[0]
        elif gp in _DEFAULT_SIZE:
            size = _DEFAULT_SIZE[gp]
        elif any(p in ("rm", "m", "i") for p in patterns):
            raise error(
                f"{mnemonic!r} needs a size suffix here: nothing else gives the operand size "
                f"({', '.join(gp + k for k, v in SUFFIX.items() if v in sizes)})",
                col,
            )
    for o in sized_regs:
        if o["bits"] != size:
            if suffix:
                raise error(
                    f"{reg_name(o)} is {sized(o['bits'])} register; {mnemonic!r} operates on {size} bits", o["col"]
                )
            raise error(f"operand sizes disagree: {reg_name(sized_regs[0])} and {reg_name(o)}", o["col"])
    if sizes is not None and size not in sizes:
        if size == 32 and gp in ("push", "pop", "jmp", "call", "ret"):
            raise error(f"{mnemonic!r} with 32-bit operands is not valid in 64-bit mode", col)
        where = sized_regs[0]["col"] if sized_regs and not suffix else col
        raise error(f"{gp!r} has no {size}-bit form", where)
    for p, o in zip(patterns, operands):
        if p == "seg" and gp in ("push", "pop") and o["reg"].name not in ("fs", "gs"):
            raise error(f"{gp} %{o['reg'].name} is not valid in 64-bit mode (only %fs and %gs)", o["col"])
        if p == "seg" and gp == "mov" and o is operands[-1] and o["reg"].name == "cs":
            raise error("%cs cannot be loaded with mov", o["col"])
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
    elif size == 64 and gp == "mov" and is_gpr(operands[-1]):
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
        raise error(f"immediate {o['text']} does not fit in the {what} of {mnemonic!r}", o["col"])


def _check_movabs(mnemonic: str, operands: list[dict], col: int) -> None:
    suffix = mnemonic[len("movabs") :]
    if suffix not in ("", "b", "w", "l", "q"):
        raise error(f"unknown instruction {mnemonic!r}", col)
    if len(operands) != 2:
        raise error(
            f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"]
        )
    src, dst = operands
    size = SUFFIX.get(suffix)
    if src["kind"] == "imm":
        if not is_gpr(dst) or dst["bits"] != 64 or size not in (None, 64):
            raise error(f"{mnemonic!r} with an immediate writes a 64-bit register", dst["col"])
        value = src.get("value")
        if value is not None and not -(1 << 64) < value < 1 << 64:  # llvm-mc: 64 bits, signed or not
            raise error(f"immediate {src['text']} does not fit in the 64-bit immediate of {mnemonic!r}", src["col"])
        return
    mem, acc = (src, dst) if src["kind"] == "mem" else (dst, src)
    if mem["kind"] != "mem" or not mem.get("absolute"):
        raise error(f"{mnemonic!r} moves an immediate or an absolute address", mem["col"])
    if not matches("a", acc):
        raise error(
            f"{mnemonic!r} with an absolute address takes the accumulator (%al, %ax, %eax, %rax), not {describe(acc)}",
            acc["col"],
        )
    if size is not None and acc["bits"] != size:
        raise error(
            f"{reg_name(acc)} is {sized(acc['bits'])} register; {mnemonic!r} operates on {size} bits", acc["col"]
        )


def _check_extend(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) != 2:
        raise error(
            f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"]
        )
    src, dst = operands
    if not is_gpr(dst):
        raise error(f"the destination of {mnemonic!r} is a general-purpose register, not {describe(dst)}", dst["col"])
    if not (is_gpr(src) or src["kind"] == "mem"):
        raise error(f"the source of {mnemonic!r} is a register or memory, not {describe(src)}", src["col"])
    if mnemonic in _EXTEND:
        s, d = _EXTEND[mnemonic]
    else:  # movzx/movsx: sizes from the registers
        if not is_gpr(src):
            raise error(f"{mnemonic!r} from memory needs a size suffix (movzbl, movzwl …)", col)
        s, d = src["bits"], dst["bits"]
        if s not in (8, 16) or d <= s:
            raise error(f"{mnemonic!r} cannot extend {reg_name(src)} into {reg_name(dst)}", src["col"])
    if is_gpr(src) and src["bits"] != s:
        raise error(f"{reg_name(src)} is {sized(src['bits'])} register; {mnemonic!r} reads {s} bits", src["col"])
    if dst["bits"] != d:
        raise error(f"{reg_name(dst)} is {sized(dst['bits'])} register; {mnemonic!r} writes {d} bits", dst["col"])


def _check_crc32(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) != 2:
        raise error(
            f"{mnemonic!r} takes 2 operands, not {len(operands)}", col if len(operands) < 2 else operands[2]["col"]
        )
    src, dst = operands
    if not is_gpr(dst) or dst["bits"] not in (32, 64):
        raise error(f"the destination of {mnemonic!r} is a 32- or 64-bit register", dst["col"])
    if not (is_gpr(src) or src["kind"] == "mem"):
        raise error(f"the source of {mnemonic!r} is a register or memory, not {describe(src)}", src["col"])
    size = SUFFIX.get(mnemonic[len("crc32") :])
    if size is None:
        if not is_gpr(src):
            raise error(f"{mnemonic!r} from memory needs a size suffix (crc32b, crc32w, crc32l, crc32q)", col)
        size = src["bits"]
    if is_gpr(src) and src["bits"] != size:
        raise error(f"{reg_name(src)} is {sized(src['bits'])} register; {mnemonic!r} reads {size} bits", src["col"])
    if size == 64 and dst["bits"] != 64:
        raise error(f"{mnemonic!r} with a 64-bit source writes a 64-bit register", dst["col"])
    if size in (16, 32) and dst["bits"] != 32:
        raise error(f"{mnemonic!r} with {sized(size)} source writes a 32-bit register", dst["col"])


def _check_string(mnemonic: str, family: str, letter: str, operands: list[dict], col: int) -> None:
    size = {"b": 8, "w": 16, "l": 32, "d": 32, "q": 64}[letter]
    if family in ("ins", "outs") and size == 64:
        raise error(f"unknown instruction {mnemonic!r}", col)
    shapes = _STRING_FORMS[family]
    if not any(len(s) == len(operands) for s in shapes):
        counts = " or ".join(str(len(s)) for s in shapes)
        raise error(f"{mnemonic!r} takes {counts} operands, not {len(operands)}", col)
    shape = next(s for s in shapes if len(s) == len(operands))
    widths = set()
    for role, o in zip(shape, operands):
        if role == "SI":
            if not fixed_memory(o, ("rsi", "esi")):
                raise error(f"the source of {mnemonic!r} is always (%rsi)", o["col"])
            widths.add(o["base"].width)
        elif role == "DI":
            if not fixed_memory(o, ("rdi", "edi")) or o.get("seg") not in (None, "es"):
                raise error(f"the destination of {mnemonic!r} is always %es:(%rdi)", o["col"])
            widths.add(o["base"].width)
        elif role == "ACC":
            if not (matches("a", o) and o["bits"] == size):
                acc = {8: "%al", 16: "%ax", 32: "%eax", 64: "%rax"}[size]
                raise error(f"the register operand of {mnemonic!r} is always {acc}", o["col"])
        elif role == "DX":
            if not matches("dx", o):
                raise error(f"the port of {mnemonic!r} is always %dx", o["col"])
    if len(widths) > 1:
        raise error(f"the address registers of {mnemonic!r} differ in width", operands[-1]["col"])


def _check_xlat(mnemonic: str, operands: list[dict], col: int) -> None:
    if len(operands) > 1:
        raise error(f"{mnemonic!r} takes 0 or 1 operands, not {len(operands)}", operands[1]["col"])
    if operands and not fixed_memory(operands[0], ("rbx", "ebx")):
        raise error(f"the table of {mnemonic!r} is always (%rbx)", operands[0]["col"])
