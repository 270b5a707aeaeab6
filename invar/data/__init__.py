"""Datasets: sources, labels, caches. ``bhive``: BHive blocks labelled by llvm-mca.

``bhive`` (BHive's sources, llvm-mca labels, splits), ``examples`` (a stored
row, as every task reads it), ``manifest`` (what a dataset directory is),
``incontext`` (the lexinvariant paper's LookUp and Permutation examples).

The data layer imports the ground floor, symmetry, frontends and encoding;
never tasks (which read datasets), nn or anything above.
"""
