"""EVEX-only instructions: invar's list agrees with llvm-mc's encodings.

:func:`invar.frontends.x86.vector.evex_only` says which AVX-512 instructions
have no VEX form; a renaming may move their vector registers into
%xmm16-31/%ymm16-31 (tests/oracles/test_x86_mca.py times such renamings).
Here ``llvm-mc`` encodes one instruction per family with registers 0-15:
EVEX (``0x62``) exactly where invar says EVEX-only.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from invar.frontends.x86.vector import evex_only

pytestmark = pytest.mark.skipif(
    shutil.which("llvm-mc") is None, reason="needs llvm-mc (.ci/run installs Debian's llvm)"
)

#: one instruction of each EVEX-only family, registers 0-15
EVEX_ONLY = [
    'vmovdqu64 %xmm1, %xmm2',
    'vmovdqa32 (%rax), %ymm3',
    'vmovdqu8 %ymm1, (%rdi)',
    'vmovdqu16 %xmm4, %xmm5',
    'vpternlogd $0x96, %xmm1, %xmm2, %xmm3',
    'vpternlogq $0xe8, %ymm1, %ymm2, %ymm3',
    'vpermt2d %xmm1, %xmm2, %xmm3',
    'vpermi2ps %ymm1, %ymm2, %ymm3',
    'vpermw %ymm1, %ymm2, %ymm3',
    'vpermb %xmm1, %xmm2, %xmm3',
    'vprold $3, %xmm1, %xmm2',
    'vprorvq %ymm1, %ymm2, %ymm3',
    'vpmullq %xmm1, %xmm2, %xmm3',
    'vpsraq $2, %xmm1, %xmm2',
    'vpsravq %ymm1, %ymm2, %ymm3',
    'vpsllvw %xmm1, %xmm2, %xmm3',
    'vpabsq %xmm1, %xmm2',
    'vpmaxuq %ymm1, %ymm2, %ymm3',
    'vpminsq %xmm1, %xmm2, %xmm3',
    'vcvtps2qq %xmm1, %ymm2',
    'vcvttpd2uqq %xmm1, %xmm2',
    'vcvtqq2pd %ymm1, %ymm2',
    'vcvtudq2ps %xmm1, %xmm2',
    'vcvtusi2sdl %eax, %xmm1, %xmm2',
    'vcvttss2usi %xmm1, %eax',
    'vrcp14ps %xmm1, %xmm2',
    'vrsqrt14sd %xmm1, %xmm2, %xmm3',
    'vrndscaleps $1, %ymm1, %ymm2',
    'vreducepd $1, %xmm1, %xmm2',
    'vrangeps $1, %xmm1, %xmm2, %xmm3',
    'vgetexpps %xmm1, %xmm2',
    'vgetmantsd $1, %xmm1, %xmm2, %xmm3',
    'vscalefpd %ymm1, %ymm2, %ymm3',
    'vfixupimmps $1, %xmm1, %xmm2, %xmm3',
    'vpconflictd %xmm1, %xmm2',
    'vplzcntq %ymm1, %ymm2',
    'vpopcntd %xmm1, %xmm2',
    'vdbpsadbw $1, %xmm1, %xmm2, %xmm3',
    'vshuff32x4 $1, %ymm1, %ymm2, %ymm3',
    'vinserti32x4 $1, %xmm1, %ymm2, %ymm3',
    'vextractf64x2 $1, %ymm1, %xmm2',
    'vbroadcasti32x4 (%rax), %ymm1',
    'vbroadcastf32x2 %xmm1, %ymm2',
    'vpmovqd %ymm1, %xmm2',
    'vpmovusdb %xmm1, %xmm2',
    'vpmovswb %ymm1, %xmm2',
    'vpblendmd %xmm1, %xmm2, %xmm3 {%k1}',
    'valignq $1, %ymm1, %ymm2, %ymm3',
    'vpshldd $3, %xmm1, %xmm2, %xmm3',
    'vpshrdvq %xmm1, %xmm2, %xmm3',
    'vcompressps %xmm1, %xmm2',
    'vpexpandd %ymm1, %ymm2',
    'vpmultishiftqb %xmm1, %xmm2, %xmm3',
    'vcvtne2ps2bf16 %xmm1, %xmm2, %xmm3',
    'vdpbf16ps %ymm1, %ymm2, %ymm3',
]
#: VEX instructions, several close to an EVEX-only name (vpsravd, vpermd, vpcmpeqd, vcvtps2ph)
VEX = [
    'vaddps %xmm1, %xmm2, %xmm3',
    'vpaddd %ymm1, %ymm2, %ymm3',
    'vmovdqu %xmm1, %xmm2',
    'vmovdqa (%rax), %ymm1',
    'vpermd %ymm1, %ymm2, %ymm3',
    'vpermq $1, %ymm1, %ymm2',
    'vpcmpeqd %xmm1, %xmm2, %xmm3',
    'vpcmpgtq %ymm1, %ymm2, %ymm3',
    'vpsrlvq %xmm1, %xmm2, %xmm3',
    'vpsravd %xmm1, %xmm2, %xmm3',
    'vpsllvd %xmm1, %xmm2, %xmm3',
    'vpabsd %xmm1, %xmm2',
    'vpmaxsd %xmm1, %xmm2, %xmm3',
    'vcvtps2dq %xmm1, %xmm2',
    'vcvtdq2pd %xmm1, %ymm2',
    'vfmadd231ps %xmm1, %xmm2, %xmm3',
    'vbroadcastss %xmm1, %ymm2',
    'vpbroadcastd %xmm1, %xmm2',
    'vinserti128 $1, %xmm1, %ymm2, %ymm3',
    'vextractf128 $1, %ymm1, %xmm2',
    'vpmovzxbd %xmm1, %xmm2',
    'vpmovsxwq %xmm1, %ymm2',
    'vpshufb %xmm1, %xmm2, %xmm3',
    'vcvtph2ps %xmm1, %xmm2',
    'vcvtps2ph $0, %xmm1, %xmm2',
    'vpmaddwd %xmm1, %xmm2, %xmm3',
    'vpsrlq $3, %xmm1, %xmm2',
    'vpsrad $3, %xmm1, %xmm2',
    'vpermilps $1, %xmm1, %xmm2',
    'vpalignr $1, %xmm1, %xmm2, %xmm3',
    'vpmulld %xmm1, %xmm2, %xmm3',
    'vpcmpistri $1, %xmm1, %xmm2',
    'vpextrq $1, %xmm1, %rax',
    'vpinsrd $1, %eax, %xmm1, %xmm2',
    'vmovq %xmm1, %rax',
    'vcvtsi2sdl %eax, %xmm1, %xmm2',
    'vcvttss2si %xmm1, %eax',
    'vrcpps %xmm1, %xmm2',
    'vroundps $1, %xmm1, %xmm2',
]


def _first_bytes(lines: list[str]) -> list[str]:
    run = subprocess.run(
        ["llvm-mc", "-triple=x86_64-unknown-linux-gnu", "--show-encoding"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
    )
    assert not run.stderr, run.stderr[:500]
    firsts = re.findall(r"encoding: \[(0x[0-9a-f]+)", run.stdout)
    assert len(firsts) == len(lines)
    return firsts


def test_evex_only_is_what_llvm_mc_encodes_with_evex():
    lines = EVEX_ONLY + VEX
    wrong = [
        (line, first, evex_only(line.split()[0]))
        for line, first in zip(lines, _first_bytes(lines))
        if (first == "0x62") != evex_only(line.split()[0])
    ]
    assert not wrong, wrong
    assert len(EVEX_ONLY) > 50 and len(VEX) > 30
