"""Encoding: renamings as id remaps and permutations as index remaps equal
encoding the transformed program; batches; the vocabulary; the disk cache."""

from __future__ import annotations

import random

import numpy as np
import pytest

from invar.encoding import (
    UNK,
    Encoded,
    NoIdRemap,
    Vocab,
    collate,
    encode,
    load_encoded,
    permuted,
    renamed,
    renaming_space_of,
    save_encoded,
)
from invar.frontends.x86 import parse
from invar.frontends.x86.hexblock import decode
from invar.symmetry.masks import token_mask
from invar.symmetry.permutations import PermutationSpace
from invar.symmetry.spaces import renaming_space
from tests.conftest import FIXTURES, bhive_blocks, same_but_target_order

FIG1A = (FIXTURES / "x86" / "figure1a.s").read_text()


@pytest.fixture(scope="module")
def blocks():
    """500 real BHive blocks, seeded."""
    return [decode(h) for h in random.Random(3).sample(bhive_blocks(), 500)]


def test_renaming_by_id_remap_equals_encoding_the_rendered_text(blocks):
    """On 500 real blocks: rename the encoding (ids only), and separately
    render the renamed program, parse the text and encode it; every array
    agrees, canonical ids included."""
    rng = random.Random(0)
    vocab = Vocab.build(blocks[:250])  # half the blocks bring texts the vocabulary lacks
    moved = 0
    for program in blocks:
        space = renaming_space(program)
        enc = encode(program, vocab, canonical=True)
        for r in space.sample(1, rng):
            by_ids = renamed(enc, r, vocab)
            by_text = encode(parse(space.apply(program, r).render()), vocab, canonical=True)
            assert by_ids.same(by_text), program.render()
            moved += not np.array_equal(by_ids.tokens, enc.tokens)
    assert len(blocks) == 500 and moved > 450


def test_vocabulary_is_closed_under_renamings(blocks):
    rng = random.Random(1)
    vocab = Vocab.build(blocks[:300])
    for program in blocks[:300]:
        enc = encode(program, vocab)
        space = renaming_space(program)
        for r in space.sample(3, rng):
            ids = renamed(enc, r, vocab).tokens[enc.referents > 0]
            assert all(vocab.tokens[i].startswith("%") for i in ids), "a renamed register fell out of the vocabulary"


def test_permutation_by_index_remap_equals_encoding_the_reordered_program(blocks):
    """Compared with PermutationSpace.apply (dependencies move with their
    lines), not with re-parsed text: re-parsing a reordered block may prove
    different memory accesses disjoint."""
    rng = random.Random(2)
    vocab = Vocab.build(blocks[:300])
    reordered = 0
    for program in blocks[:400]:
        space = PermutationSpace(program)
        enc = encode(program, vocab)
        for t in space.sample(2, rng):
            assert permuted(enc, t).same(encode(space.apply(program, t), vocab))
            reordered += not t.is_identity
    assert reordered > 300


def test_renamed_then_permuted_commute(blocks):
    rng = random.Random(4)
    vocab = Vocab.build(blocks[:200])
    for program in blocks[:200]:
        enc = encode(program, vocab)
        r = renaming_space(program).sample(1, rng)[0]
        t = PermutationSpace(program).sample(1, rng)[0]
        assert permuted(renamed(enc, r, vocab), t).same(renamed(permuted(enc, t), r, vocab))


def test_renaming_space_rebuilt_from_arrays_samples_the_same_renamings(blocks):
    vocab = Vocab.build(blocks[:100])
    for program in blocks[:100]:
        space = renaming_space(program)
        rebuilt = renaming_space_of(encode(program, vocab), vocab)
        assert rebuilt.count() == space.count()
        assert rebuilt.sample(3, 7) == space.sample(3, 7)


def test_figure1a_arrays():
    program = parse(FIG1A)
    vocab = Vocab.build([program])
    enc = encode(program, vocab, canonical=True)
    assert [vocab.tokens[i] for i in enc.tokens[:7]] == ["mov", "64", "(", "%rsp", ")", ",", "%rax"]
    assert [vocab.views[i] for i in enc.views[:7]] == ["mov", "disp", "(", "gpr:64", ")", ",", "gpr:64"]
    assert [vocab.referents[i] for i in enc.referents[:7]] == ["<none>"] * 3 + ["gpr:sp"] + ["<none>"] * 2 + ["gpr:a"]
    assert enc.lines.tolist() == [0] * 7 + [1] * 7 + [2] * 7
    assert enc.line_pos.tolist() == list(range(7)) * 3
    assert enc.layer.tolist() == [0, 1, 2]
    assert [vocab.referents[i] for i in enc.rename_refs] == ["gpr:sp", "gpr:a", "gpr:bp"]
    assert [vocab.tokens[i] for i in enc.canon if vocab.tokens[i].startswith("%")] == [
        "%rax",
        "%rcx",
        "%rdx",
        "%rcx",
        "%ecx",
    ]


def test_unknown_texts_fall_back_to_their_views_unknown():
    vocab = Vocab.build([parse("movl $1, %eax")])
    enc = encode(parse("addl $77, %eax"), vocab)
    # an unseen mnemonic is its own view, unseen too; an unseen immediate is still an immediate
    assert [vocab.tokens[i] for i in enc.tokens] == ["<unk>", "<unk:imm>", ",", "%eax"]
    assert vocab.token_id("zzz", "never-seen") == UNK


def test_collate_pads_and_expands_the_symmetry_mask():
    programs = [parse(FIG1A), parse("addq %rax, %rbx\naddq %rcx, %rdx")]
    vocab = Vocab.build(programs)
    encs = [encode(p, vocab) for p in programs]
    batch = collate(encs, symmetry=True)
    assert batch["tokens"].shape == (2, 21)
    assert batch["valid"].sum(dim=1).tolist() == [21, 8]
    assert (batch["tokens"][1, 8:] == 0).all()
    for b, (p, e) in enumerate(zip(programs, encs)):
        n = len(e)
        assert np.array_equal(batch["symmetry"][b, :n, :n].numpy(), token_mask(p))
        assert not batch["symmetry"][b, n:].any() and not batch["symmetry"][b, :, n:].any()
    with pytest.raises(ValueError, match="canonical"):
        collate(encs, canonical=True)


@pytest.mark.parametrize(
    "text, pinned",
    [
        # mul reads and writes %rax and %rdx, a shift counts in %cl, push and a stack address use %rsp;
        # %rcx, mul's free operand, is pinned too: it is the same register as the shift's %cl
        (
            "mulq %rcx\nmovq %rax, %rbx\nshlq %cl, %rdx\npush %rbp\naddq (%rsp), %rsi\n",
            ["%rcx", "%rax", "%cl", "%rdx", "%rsp"],
        ),
        ("addq %rax, %rbx\nsubq %rbx, %rcx", []),
        ("push %rbx\naddq (%rsp), %rax", ["%rsp"]),  # push moves the stack pointer: pinned
        ("movq (%rsp), %rax\nmovq %rax, 8(%rsp)", []),  # a base address only: any register would do
        ("cqto\nidivq %rcx\nmovq %rdx, %rbx", ["%rdx"]),  # the remainder is in %rdx; the divisor is free
        ("movq %fs:40, %rax\nleaq 8(%rip), %rbx", ["%fs", "%rip"]),  # classes no renaming moves
    ],
)
def test_pinned_tokens_are_those_no_renaming_moves(text, pinned):
    program = parse(text)
    vocab = Vocab.build([parse("nop")])  # the mask does not depend on what the vocabulary knows
    enc = encode(program, vocab)
    assert [t.text for t, m in zip(program.tokens, enc.pinned) if m] == pinned
    batch = collate([enc, encode(parse("nop"), vocab)], pinned=True)
    assert batch["pinned"][0, : len(enc)].tolist() == enc.pinned.tolist() and not batch["pinned"][1].any()
    assert "pinned" not in collate([enc])


def test_a_renaming_keeps_the_pinned_tokens(blocks):
    """On 500 real blocks, with a vocabulary that lacks some of their
    referents: the encoding of every renamed text pins the same tokens, and
    none of them changed."""
    rng = random.Random(1)
    vocab = Vocab.build(blocks[:250])
    pinned_somewhere = 0
    for program in blocks:
        enc = encode(program, vocab)
        pinned_somewhere += bool(enc.pinned.any())
        space = renaming_space(program)
        for r in space.sample(2, rng):
            by_text = encode(parse(space.apply(program, r).render()), vocab)
            assert np.array_equal(by_text.pinned, enc.pinned), program.render()
            assert np.array_equal(by_text.tokens[enc.pinned], enc.tokens[enc.pinned])
    assert pinned_somewhere > 25  # about one block in eight names a pinned register


def test_no_id_remap_moves_one_of_several_unknown_referents():
    """A referent the vocabulary lacks (``%zmm17``) shares the unknown id with
    every other (``%fs``): renaming it onto a register the vocabulary holds
    by id remap would move ``%fs`` too, so it is refused; every other
    renaming (onto another unknown register, which changes no id), and every
    renaming where it is the only one, is an id remap that equals encoding
    the renamed text."""
    vocab = Vocab.build([parse("addps %xmm1, %xmm2\nmovq %rax, %rbx")])  # vec:0-15 and the gprs, nothing else
    program = parse("movq %fs:40, %rax\nvaddps 8(%rip), %zmm17, %zmm2\nvmulps %zmm2, %zmm3, %zmm4")
    space = renaming_space(program)
    enc = encode(program, vocab)
    refused = 0
    for r in space.sample(40, random.Random(0)):
        by_text = encode(parse(space.apply(program, r).render()), vocab)
        if vocab.referent_id(r.as_dict().get("vec:17", "vec:17")) != UNK:  # onto a register the vocabulary holds
            with pytest.raises(NoIdRemap, match="vec:17, a referent the vocabulary lacks"):
                renamed(enc, r, vocab)
            refused += 1
        else:
            assert renamed(enc, r, vocab).same(by_text)
    assert 0 < refused < 40
    # without %fs, %zmm17 is the one referent the vocabulary lacks: every renaming has an id remap
    program = parse("vaddps %zmm1, %zmm17, %zmm2\nvmulps %zmm2, %zmm3, %zmm4")
    space, enc = renaming_space(program), encode(program, vocab)
    for r in space.sample(40, random.Random(0)):
        assert renamed(enc, r, vocab).same(encode(parse(space.apply(program, r).render()), vocab))


def test_vocab_and_encodings_round_trip_through_disk(tmp_path, blocks):
    import json

    vocab = Vocab.build(blocks[:50])
    assert Vocab.from_dict(json.loads(json.dumps(vocab.to_dict()))).to_dict() == vocab.to_dict()
    encs = [encode(p, vocab, canonical=True) for p in blocks[:50]]
    save_encoded(tmp_path / "x.npz", encs, extra={"labels": np.arange(50.0)})
    back, extra = load_encoded(tmp_path / "x.npz")
    assert len(back) == 50 and all(a.same(b) for a, b in zip(encs, back))
    assert extra["labels"].tolist() == list(range(50))
    assert [f.name for f in tmp_path.iterdir()] == ["x.npz"]  # no temporary file left


def test_permuted_rejects_a_non_permutation():
    program = parse(FIG1A)
    enc = encode(program, Vocab.build([program]))
    with pytest.raises(ValueError, match="not a permutation"):
        permuted(enc, [0, 0, 1])
    assert isinstance(permuted(enc, [0, 1, 2]), Encoded)


@pytest.mark.parametrize(
    "text",
    [
        "movzwl (%rax), %ecx\naddl $1, %ecx\nmovw %cx, (%rax)",  # gpr:16, a view the vocabulary lacks
        "movb %bl, (%rdi)\naddq %rbx, %rdi",  # gpr:8
        "addps %xmm1, %xmm2\nmovq %rax, %rbx",  # vector registers
        "vaddps %ymm1, %ymm2, %ymm3",
    ],
)
def test_renaming_a_register_of_a_view_the_vocabulary_never_saw(text):
    """A model's vocabulary holds the views of its training data; renaming a
    token of another view by id remap equals encoding the renamed text."""
    vocab = Vocab.build([parse("addq %rax, %rbx\nmovq 8(%rsp), %rcx")])
    program = parse(text)
    space = renaming_space(program)
    enc = encode(program, vocab)
    for r in space.sample(8, random.Random(1)):
        assert renamed(enc, r, vocab).same(encode(parse(space.apply(program, r).render()), vocab)), r


def test_python_renamings_by_id_remap_equal_encoding_the_renamed_program():
    """Functions of the standard library, with a vocabulary built from half
    of them, so that the other half has names it lacks (one or several per
    function) and names whose text it knows under another referent: every
    sampled renaming either has an id remap equal to encoding the renamed
    program, or is refused (several unknown names, one of them moved)."""
    import inspect
    import json as json_module
    import shlex
    import textwrap as textwrap_module

    from invar.frontends.python import parse_units
    from invar.frontends.python import renaming_space as python_space

    units = [u for m in (textwrap_module, json_module.decoder, shlex) for u in parse_units(inspect.getsource(m))]
    known, audited = units[::2], units[1::2]
    vocab = Vocab.build(known)
    rng = random.Random(5)
    checked = refused = 0
    for program in audited:
        space = python_space(program)
        enc = encode(program, vocab)
        for r in space.sample(8, rng):
            by_program = encode(space.apply(program, r), vocab)
            try:
                got = renamed(enc, r, vocab)
            except NoIdRemap:
                refused += 1
                continue
            assert same_but_target_order(got, by_program), (program.name, r)
            checked += 1
    assert checked > 40 and refused > 0


def test_an_encoding_without_its_pinned_mask_refuses_to_move_its_unknown_referent():
    """An encoding from before ``Encoded.pinned`` cannot tell how many
    referents the vocabulary lacks (here one: ``%zmm17``): moving it onto a
    register the vocabulary holds is refused all the same, and the same
    renaming of the full encoding is an id remap."""
    from dataclasses import replace

    vocab = Vocab.build([parse("addps %xmm1, %xmm2\nmovq %rax, %rbx")])  # vec:0-15, not vec:17
    program = parse("vaddps %zmm1, %zmm17, %zmm2")
    space = renaming_space(program)
    full = encode(program, vocab)
    r = next(r for r in space.sample(40, random.Random(0)) if vocab.referent_id(r.as_dict()["vec:17"]) != UNK)
    with pytest.raises(NoIdRemap):
        renamed(replace(full, pinned=None), r, vocab)
    assert renamed(full, r, vocab).same(encode(space.apply(program, r), vocab))
