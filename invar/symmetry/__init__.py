"""Symmetry spaces (renamings, permutations) and masks.

``renamings`` (RenamingSpace), ``permutations`` (PermutationSpace) over
``posets`` (the dependency order decomposed), ``bigint`` (huge counts as
text), ``spaces`` (a program's renaming space and canonical form, found
through its frontend's registry entry by name), ``dlg`` and ``masks``.

The symmetry layer imports only the ground floor (errors, program); never
frontends (which ask it for their spaces) or anything above.
"""
