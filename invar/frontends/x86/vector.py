"""Generic rules for vector instructions and AVX-512 decorators.

SSE, AVX and AVX-512 instructions are not checked form by form; these rules
catch what a renaming or a careless edit gets wrong: operand counts of legacy
SSE, MMX beside XMM, general-purpose register widths and kinds, legacy SSE
writing memory, the forms of ``movd``/``movq``, EVEX registers and
decorators in VEX-only instructions, and every rule of write masks, ``{z}``,
broadcasts, rounding control, gathers and scatters.
"""

from __future__ import annotations

import re

from .general_purpose import gp_name
from .operands import SUFFIX, error, reg_name, sized
from .semantics import NARROWING, NARROWING_SOURCE_BITS, stripped_suffix

#: instructions that mix MMX and XMM registers
_MMX_XMM = frozenset("movq2dq movdq2q cvtpi2ps cvtps2pi cvttps2pi cvtpi2pd cvtpd2pi cvttpd2pi".split())
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
#: AVX-512 instructions with no VEX form: EVEX-encoded whatever their
#: registers, so a renaming into %xmm16-31/%ymm16-31 keeps their encoding's kind
_EVEX_ONLY = re.compile(
    r"^v(?:"
    r"movdq[au](?:8|16|32|64)|pternlog[dq]|perm[it]2(?:b|w|d|q|ps|pd)|perm[bw]"
    r"|p?compress\w+|p?expand(?:b|w|d|q|ps|pd)|pro[lr]v?[dq]|pmullq|psrav?q|ps[rl]l?vw|psravw|pabsq|pm(?:ax|in)[su]q"
    r"|cvtt?(?:ps|pd)2u?qq|cvtt?ps2udq|cvtt?pd2udq[xy]?|cvtu?qq2pd|cvtu?qq2ps[xy]?|cvtudq2p[sd]|cvtusi2s[sd][lq]?"
    r"|cvtt?s[sd]2usi[lq]?"
    r"|rcp(?:14|28)(?:ps|pd|ss|sd)|rsqrt(?:14|28)(?:ps|pd|ss|sd)|exp2p[sd]"
    r"|rndscale(?:ps|pd|ss|sd)|reduce(?:ps|pd|ss|sd)|range(?:ps|pd|ss|sd)|getexp(?:ps|pd|ss|sd)|getmant(?:ps|pd|ss|sd)"
    r"|scalef(?:ps|pd|ss|sd)|fixupimm(?:ps|pd|ss|sd)|fpclass(?:ps|pd|ss|sd)[xyz]?"
    r"|pconflict[dq]|plzcnt[dq]|popcnt[bwdq]|dbpsadbw|shuf[if](?:32x4|64x2)"
    r"|insert[if](?:32x4|64x2|32x8|64x4)|extract[if](?:32x4|64x2|32x8|64x4)|broadcast[if](?:32x2|32x4|64x2|32x8|64x4)"
    r"|pbroadcastm(?:b2q|w2d)|pmov(?:s|us)?(?:qd|qw|qb|dw|db|wb)|pmov[bwdq]2m|pmovm2[bwdq]"
    r"|blendmp[sd]|pblendm[bwdq]|pcmpu?[bwdq]|pcmp(?:eq|lt|le|neq|nlt|nle|ge|gt)u[bwdq]"
    r"|pcmp(?:lt|le|neq|nlt|nle|ge)[bwdq]|ptestn?m[bwdq]|pmultishiftqb|psh[lr]dv?[wdq]|pshufbitqmb|p2intersect[dq]"
    r"|align[dq]|cvtne2ps2bf16|dpbf16ps|p?scatter\w+"
    r")$"
)
_CONVERT_FROM_GPR = re.compile(r"^v?cvt(?:u?si2s[sdh]|si2s[sd])([lq])$")


#: SSE floating-point instructions (on ss, sd, ps, pd), which never take an MMX register; the conversions
#: from and to packed integers in MMX registers (cvtpi2ps, cvttps2pi …) do
_FLOATING = re.compile(r"^(?!.*pi).*(?:ss|sd|ps|pd)$")
#: the FS/GS base instructions, whose size suffix is their register's (``wrfsbaseq %rax``, as capstone spells it)
_SEGMENT_BASE = re.compile(r"^(?:rd|wr)[fg]sbase$")
#: vector and mask instructions that take a general-purpose register operand
_VECTOR_GPR = re.compile(r"^(?:v?(?:movd|movq|cvt|pextr|pinsr|extractps|pmovmsk|movmsk)|vpbroadcast|kmov|vcvt)")


def evex_only(mnemonic: str) -> bool:
    """True for an AVX-512 instruction that has no VEX encoding (``vmovdqu64``,
    ``vpternlogd`` …): it is EVEX-encoded whatever its registers."""
    return _EVEX_ONLY.match(mnemonic.lower()) is not None


def _check_vector(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    regs = [o for o in operands if o["kind"] == "reg"]
    classes = {o["reg"].cls for o in regs}
    mmx = next((o for o in regs if o["reg"].cls == "mmx"), None)  # the first MMX operand, where a rule refuses it
    if mmx and "vec" in classes and base not in _MMX_XMM:
        raise error(f"{mnemonic!r} does not mix MMX and XMM registers (%{mmx['reg'].name})", mmx["col"])
    if mnemonic in ("movd", "vmovd", "vmovq") and not classes & {"vec", "mmx"}:
        raise error(f"{mnemonic!r} moves to or from a vector register", operands[-1]["col"] if operands else col)
    if mmx and (mnemonic.startswith("v") or _FLOATING.search(mnemonic)):
        kind = "a VEX or EVEX" if mnemonic.startswith("v") else "an SSE floating-point"
        raise error(f"%{mmx['reg'].name}: an MMX register is no operand of {kind} instruction", mmx["col"])
    named = [o for o in operands if o["kind"] != "imm"]
    if mnemonic.startswith("v") and len(named) >= 3 and not any(o.get("vsib") for o in operands):
        vvvv = named[-2]  # of three registers or memory, the one before the destination is VEX.vvvv's: a register
        if vvvv["kind"] != "reg":
            raise error(f"the operand before the destination of {mnemonic!r} is a register", vvvv["col"])
    if not classes & {"vec", "mmx", "mask"}:
        return
    for o in regs:
        if o["reg"].cls == "gpr" and o["bits"] < 32:
            raise error(f"{reg_name(o)}: vector instructions take 32- or 64-bit general-purpose registers", o["col"])
        if o["reg"].cls == "gpr" and not _VECTOR_GPR.match(mnemonic) and gp_name(mnemonic) is None:
            raise error(f"{reg_name(o)} is not an operand of {mnemonic!r}", o["col"])
    if not classes & {"vec", "mmx"}:
        return
    if len(operands) < 2:
        raise error(f"{mnemonic!r} takes at least 2 operands", col)
    if not mnemonic.startswith("v"):  # legacy SSE and MMX: destination is also a source
        immediates = sum(o["kind"] == "imm" for o in operands)
        if len(operands) > 3 + (immediates == 2):
            raise error(f"{mnemonic!r} takes at most 3 operands", operands[3]["col"])
        first = operands[0]
        if (
            len(operands) == 3
            and first["kind"] != "imm"
            and not (first["kind"] == "reg" and first["reg"].name == "xmm0")
        ):
            raise error(f"a third operand of {mnemonic!r} comes first and is an immediate or %xmm0", first["col"])
        if operands[-1]["kind"] == "mem" and not mnemonic.startswith(("mov", "pextr", "extractps")):
            raise error(f"{mnemonic!r} cannot write memory", operands[-1]["col"])
    mmx_memory = mnemonic == "mov" and classes == {"mmx"} and len(regs) == 1  # llvm-mc reads it as movq
    if gp_name(mnemonic) is not None and mnemonic != "movq" and not mmx_memory:
        o = next(o for o in regs if o["reg"].cls in ("vec", "mmx"))
        raise error(f"{reg_name(o)} is not an operand of {mnemonic!r}", o["col"])
    if mnemonic in ("movq", "movd"):
        for o in operands:
            if o["kind"] == "imm":
                raise error(f"{mnemonic!r} with a vector register takes no immediate", o["col"])
        for o in regs:
            if o["reg"].cls == "gpr" and o["bits"] != 64 and mnemonic == "movq":
                raise error(f"{reg_name(o)}: 'movq' moves 64 bits (movd moves 32)", o["col"])
            if o["reg"].cls == "vec" and o["reg"].width != "128":
                raise error(f"{reg_name(o)}: {mnemonic!r} moves to or from an %xmm register", o["col"])
    hit = _CONVERT_FROM_GPR.match(mnemonic)
    if hit:
        size = SUFFIX[hit.group(1)]
        for o in regs:
            if o["reg"].cls == "gpr" and o["bits"] != size:
                raise error(
                    f"{reg_name(o)} is {sized(o['bits'])} register; {mnemonic!r} converts {size} bits", o["col"]
                )
    if base in VEX_ONLY or mnemonic in VEX_ONLY:
        for o in operands:
            regs_of = [o["reg"]] if o["kind"] == "reg" else list(o.get("regs", ()))
            for reg in regs_of:
                if reg.cls == "vec" and (int(reg.base) >= 16 or reg.width == "512"):
                    raise error(f"{mnemonic!r} has no EVEX form: %{reg.name} cannot be encoded", o["col"])
            if o.get("decorators"):
                raise error(
                    f"{mnemonic!r} has no EVEX form: {o['decorators'][0][0]} cannot be encoded", o["decorators"][0][1]
                )


def check_generic(mnemonic: str, base: str, operands: list[dict], col: int) -> None:
    suffix = stripped_suffix(mnemonic)
    if suffix in ("x", "y") and base in NARROWING:
        # vcvtpd2psy: the source is an xmm (x) or ymm (y) register or memory of that size
        width = str(NARROWING_SOURCE_BITS[suffix])
        for o in operands[:-1]:
            if o["kind"] == "reg" and o["reg"].cls == "vec" and o["reg"].width != width:
                raise error(f"{mnemonic!r} converts a {width}-bit source, not %{o['reg'].name}", o["col"])
    elif suffix and not (base.startswith("f") or re.search(r"2u?si|u?si2", base) or _SEGMENT_BASE.match(base)):
        # only x87 (flds, fildll) and conversions (cvtsi2sdq) spell a size
        raise error(f"unknown instruction {mnemonic!r} ({base!r} takes no size suffix)", col)
    if suffix in SUFFIX and _SEGMENT_BASE.match(base):
        for o in operands:
            if o["kind"] == "reg" and o["reg"].bits != SUFFIX[suffix]:
                raise error(f"{reg_name(o)} is {sized(o['reg'].bits)} register; {mnemonic!r} is not", o["col"])
    _check_vector(mnemonic, base, operands, col)
    memory = [o for o in operands if o["kind"] == "mem"]
    if len(memory) > 1:
        raise error(f"{mnemonic!r} takes at most one memory operand", memory[1]["col"])
    seen_other = False
    for k, o in enumerate(operands):
        if o["kind"] == "imm" and seen_other and base != "out":
            if k == len(operands) - 1:
                raise error(f"an immediate cannot be the destination of {mnemonic!r}", o["col"])
            raise error(f"an immediate comes before the other operands of {mnemonic!r}", o["col"])
        seen_other |= o["kind"] != "imm"
    if "gather" in mnemonic or "scatter" in mnemonic:
        if not any(o.get("vsib") for o in memory) and not mnemonic.startswith(("vgatherpf", "vscatterpf")):
            raise error(f"{mnemonic!r} addresses memory with a vector index", memory[0]["col"] if memory else col)


def check_decorators(mnemonic: str, base: str, operands: list[dict], rounding: list[dict]) -> None:
    last = len(operands) - 1
    masks = zero = 0
    for k, o in enumerate(operands):
        for deco, at in o.get("decorators", ()):
            if not mnemonic.startswith("v"):
                raise error(f"{deco} needs an AVX-512 instruction, not {mnemonic!r}", at)
            if deco.startswith("{1to"):
                if o["kind"] != "mem" or k == last and len(operands) > 1 and not mnemonic.startswith("vfpclass"):
                    raise error(f"a broadcast {deco} applies to a memory source operand", at)
                continue
            if k != last:
                raise error(f"{deco} applies to the destination (the last operand)", at)
            if deco.startswith("{%k"):
                masks += 1
                if masks > 1:
                    raise error("only one write mask", at)
                if deco == "{%k0}":
                    raise error("%k0 cannot be a write mask (k0 means no masking)", at + 1)
            elif deco == "{z}":
                zero += 1
                if zero > 1:
                    raise error("{z} given twice", at)
                if o["kind"] == "mem":
                    raise error("zero-masking {z} cannot apply to a memory destination", at)
                if o["kind"] == "reg" and o["reg"].cls == "mask":
                    raise error("zero-masking {z} cannot apply to a mask destination", at)
    if zero and not masks:
        at = next(a for o in operands for d, a in o.get("decorators", ()) if d == "{z}")
        raise error("zero-masking {z} needs a write mask {%k1}-{%k7}", at)
    for o in rounding:
        if not mnemonic.startswith("v"):
            raise error(f"rounding control needs an AVX-512 instruction, not {mnemonic!r}", o["col"])
        if any(p["kind"] == "mem" for p in operands):
            raise error("rounding control applies to register operands only", o["col"])
    evex_gather = mnemonic.startswith(("vgather", "vpgather", "vscatter", "vpscatter")) and not mnemonic.startswith(
        ("vgatherpf", "vscatterpf")
    )
    if evex_gather:
        vsib = next((o for o in operands if o.get("vsib")), None)
        if len(operands) == 2:
            if not masks:
                raise error(f"{mnemonic!r} needs a write mask {{%k1}}-{{%k7}}", operands[-1]["col"])
            other = operands[0] if operands[1] is vsib else operands[1]
            gather = "gather" in mnemonic
            if (
                gather
                and vsib is not None
                and other["kind"] == "reg"
                and other["reg"].referent == vsib["index"].referent
            ):
                raise error(f"the index and destination registers of {mnemonic!r} must differ", other["col"])
        elif len(operands) == 3 and vsib is not None:
            regs = [o["reg"].referent for o in operands if o["kind"] == "reg"] + [vsib["index"].referent]
            if len(set(regs)) != len(regs):
                raise error(
                    f"the mask, index and destination registers of {mnemonic!r} must differ", operands[-1]["col"]
                )
