"""Symmetry spaces (renamings, permutations) and masks.

``space`` (the typed ``Space`` protocol every space keeps, and
``ProductSpace``), ``renamings`` (RenamingSpace), ``permutations``
(PermutationSpace) over ``posets`` (the dependency order decomposed),
``bigint`` (huge counts as text), ``spaces`` (a program's renaming space and
canonical form, by the rules module the frontends' registry, or a task,
registered for its language), ``dlg`` and ``masks``.

The symmetry layer imports only the ground floor (errors, program); never
frontends (which ask it for their spaces) or anything above.
"""
