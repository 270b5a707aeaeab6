"""Instruction forms whose llvm-mca timing depends on which register an
operand names (generated: do not edit).

Measured by the register sweep (tests/oracles/x86_register_sweep.py) over
every instruction form of BHive and of the generated-block oracle; regenerate with

    python bench/bench_register_sweep.py --json sweep.json --rules invar/frontends/x86/register_rules.py

(or from a kept run: ``--from-json sweep.json --rules ...``).

3096 forms swept on haswell, ivybridge, skylake, skylake-avx512; haswell: 158 register-dependent; ivybridge: 152 register-dependent; skylake: 160 register-dependent; skylake-avx512: 160 register-dependent.

``RULES[(mnemonic, operand kinds)]`` maps a group of slots, each
``(operand index, role)`` with role ``reg``, ``base`` or ``index``, tied to
one register (one slot, or two naming the same register), to the registers
(referents) that llvm-mca times differently there and the CPU models where
it does. :mod:`invar.frontends.x86.rename` keeps such a register in such a
slot and lets no other register of the slot become it.
"""

from __future__ import annotations

RULES: dict[tuple[str, tuple[str, ...]], dict[tuple[tuple[int, str], ...], tuple[frozenset[str], tuple[str, ...]]]] = {
    ('adcb', ('imm', 'gpr:8')): {((1, 'reg'),): (frozenset(['gpr:a']), ('skylake', 'skylake-avx512'))},
    ('adcl', ('imm', 'gpr:32')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('adcq', ('imm', 'gpr:64')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('adcw', ('imm', 'gpr:16')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('cmpsb', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpsl', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpsq', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpsw', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchg16b', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchg16b', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchg16b', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchg16b', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgb', ('gpr:8', 'gpr:8')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgb', ('gpr:8', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:cs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:ds:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:fs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:gs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:i')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgb', ('gpr:8', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgb', ('gpr:8', 'mem:ss:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'gpr:32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgl', ('gpr:32', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgl', ('gpr:32', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgq', ('gpr:64', 'gpr:64')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgq', ('gpr:64', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:cs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:i')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgq', ('gpr:64', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgw', ('gpr:16', 'gpr:16')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('cmpxchgw', ('gpr:16', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:cs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:es:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:fs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:i')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('cmpxchgw', ('gpr:16', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divb', ('gpr:8',)): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divl', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divl', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('divw', ('gpr:16',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivb', ('gpr:8',)): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivl', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivl', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('idivq', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('idivw', ('gpr:16',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('gpr:8',)): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('mem:cs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('mem:gs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulb', ('mem:ss:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imull', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imull', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imull', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imull', ('mem:ds:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imull', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulq', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imulq', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imulq', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulw', ('gpr:16',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulw', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('imulw', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imulw', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('imulw', ('mem:es:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchg16b', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchg16b', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchg16b', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchg16b', ('mem:cs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchg16b', ('mem:fs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchg16b', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgb', ('gpr:8', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgl', ('gpr:32', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgl', ('gpr:32', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgl', ('gpr:32', 'mem:fs:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:abs')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:bi')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:i')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgq', ('gpr:64', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('lock cmpxchgw', ('gpr:16', 'mem:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgw', ('gpr:16', 'mem:bi32')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgw', ('gpr:16', 'mem:gs:b')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'base')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgw', ('gpr:16', 'mem:i')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'reg'), (1, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('lock cmpxchgw', ('gpr:16', 'mem:r')): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('movsb', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('movsl', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('movsq', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('movsw', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulb', ('gpr:8',)): {
        ((0, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulb', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulb', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'index'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulb', ('mem:ds:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulb', ('mem:ss:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mull', ('gpr:32',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mull', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mull', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mull', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulq', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulq', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulq', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulw', ('gpr:16',)): {
        ((0, 'reg'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulw', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulw', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulw', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (0, 'index')): (
            frozenset(['gpr:a', 'gpr:d']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulw', ('mem:cs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulw', ('mem:i',)): {
        ((0, 'index'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulw', ('mem:ss:b',)): {
        ((0, 'base'),): (frozenset(['gpr:a', 'gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('mulxl', ('gpr:32', 'gpr:32', 'gpr:32')): {
        ((0, 'reg'),): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'), (2, 'reg')): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((2, 'reg'),): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('mulxq', ('mem:bi', 'gpr:64', 'gpr:64')): {
        ((0, 'index'),): (frozenset(['gpr:d']), ('skylake', 'skylake-avx512')),
        ((1, 'reg'),): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((1, 'reg'), (2, 'reg')): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((2, 'reg'),): (frozenset(['gpr:d']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('popq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('gpr:64',)): {
        ((0, 'reg'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:bi',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:bi32',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:ds:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:es:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:fs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:gs:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('pushq', ('mem:ss:b',)): {
        ((0, 'base'),): (frozenset(['gpr:sp']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
    ('rep movsb', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('rep movsl', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('rep movsq', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('rep movsw', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repe cmpsb', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repe cmpsl', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repe cmpsq', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repe cmpsw', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repne cmpsb', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repne cmpsl', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repne cmpsq', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('repne cmpsw', ('mem:b', 'mem:b')): {
        ((0, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
        ((0, 'base'), (1, 'base')): (
            frozenset(['gpr:di', 'gpr:si']),
            ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'),
        ),
        ((1, 'base'),): (frozenset(['gpr:di', 'gpr:si']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512')),
    },
    ('sbbb', ('imm', 'gpr:8')): {((1, 'reg'),): (frozenset(['gpr:a']), ('skylake', 'skylake-avx512'))},
    ('sbbl', ('imm', 'gpr:32')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('sbbq', ('imm', 'gpr:64')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('sbbw', ('imm', 'gpr:16')): {((1, 'reg'),): (frozenset(['gpr:a']), ('haswell', 'skylake', 'skylake-avx512'))},
    ('xchgq', ('gpr:64', 'gpr:64')): {
        ((0, 'reg'), (1, 'reg')): (frozenset(['gpr:a']), ('haswell', 'ivybridge', 'skylake', 'skylake-avx512'))
    },
}
