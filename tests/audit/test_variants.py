"""What the audit feeds a model for each variant equals encoding the
variant's program, also where the renaming has no id remap: a name the
vocabulary lacks moved onto one it holds while the program has other names
it lacks (they all share the unknown id). Such variants are encoded from
their program (invar/audit/run.py); before that, one id remap merged every
unknown name into one.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
import torch

import invar
from invar.audit.run import Variant, _encoder
from invar.encoding import UNK, NoIdRemap, Vocab, renamed
from invar.frontends import java, python, x86
from invar.nn.config import preset
from invar.nn.model import Model
from tests.conftest import same_but_target_order

#: (task, arch, language, the vocabulary's programs, the program audited): the
#: vocabulary lacks some of the program's renamable names and holds others
CASES = [
    (
        "bhive",
        "renamer",
        x86,
        ["addps %xmm1, %xmm2\nmovq %rax, %rbx"],  # vec:0-15 and the gprs: no %fs, no %zmm16-31
        "movq %fs:40, %rax\nvaddps 8(%rip), %zmm17, %zmm2\nvmulps %zmm2, %zmm3, %zmm20",
    ),
    (
        "bhive",
        "vanilla",
        x86,
        ["addps %xmm1, %xmm2\nmovq %rax, %rbx"],
        "vaddps %zmm1, %zmm17, %zmm2\nvmulps %zmm2, %zmm3, %zmm20",
    ),
    (
        "names",
        "vanilla",
        python,
        ["def f(a):\n    b = a + 1\n    return b\n"],  # knows a and b, not total or count
        "def g(items):\n    total = 0\n    count = 0\n    for a in items:\n        total = total + a\n"
        "        count = count + 1\n    return total / count\n",
    ),
    (
        "names",
        "vanilla",
        java,
        ["class A {\n    int f(int a) {\n        int b = a + 1;\n        return b;\n    }\n}\n"],
        "class B {\n    int g(int[] items) {\n        int total = 0;\n        int count = 0;\n"
        "        for (int a : items) {\n            total = total + a;\n            count = count + 1;\n        }\n"
        "        return total / count;\n    }\n}\n",
    ),
]


def _program(lang, text: str):
    parsed = lang.parse(text)
    return parsed[0] if isinstance(parsed, list) else parsed


def _model(task: str, arch: str, programs) -> Model:
    vocab = Vocab.build(programs)
    torch.manual_seed(0)
    config = preset(arch, "tiny").with_vocab(vocab)
    labels = [f"label{k}" for k in range(config.n_labels)] if task == "names" else None
    model = Model(task, config, vocab, labels=labels)
    model.network.eval()
    return model


@pytest.mark.parametrize(
    "task, arch, lang, known, text", CASES, ids=["x86-renamer", "x86-vanilla", "python-vanilla", "java-vanilla"]
)
def test_every_variant_the_audit_encodes_equals_encoding_its_program(task, arch, lang, known, text):
    program = _program(lang, text)
    model = _model(task, arch, [_program(lang, t) for t in known])
    space = lang.renaming_space(program)
    renamings = [r for r in space.sample(40, random.Random(0)) if not r.is_identity]
    variants = [Variant(r, None) for r in renamings]
    make = _encoder(SimpleNamespace(encodes=True, model=model), program, space, variants)
    enc0 = model.encode(program)
    assert make(0).same(enc0)
    refused = 0
    for j, r in enumerate(renamings, 1):
        assert same_but_target_order(make(j), model.encode(space.apply(program, r))), r
        try:
            renamed(enc0, r, model.vocab)
        except NoIdRemap:
            refused += 1
    # the program has several names the vocabulary lacks, and renamings that move them
    assert sum(int(x) == UNK for x in enc0.rename_refs) >= 2 and refused > 0


def test_the_audit_of_a_renamer_finds_no_violation_where_the_vocabulary_lacks_registers():
    task, arch, lang, known, text = CASES[0]
    model = _model(task, arch, [_program(lang, t) for t in known])
    report = invar.audit(model, [_program(lang, text)], transform="renamings", variants=40)
    (rec,) = [r for r in report.records if r["type"] == "example"]
    assert rec["error"] is None and rec["variants"] == 40 and rec["violation"] == 0
