"""Datasets: sources, labels, caches. ``bhive``: BHive blocks labelled by llvm-mca."""
