"""bench/bench_ltl_init.py on a few generated formulas: the sqrt(d) scaling
keeps more of an AP's random vector through the untrained blocks than none."""

from __future__ import annotations

import json

from tests.bench import bench_module


def test_scaled_inputs_keep_the_ap_identity_the_unscaled_lose(tmp_path):
    bench = bench_module("bench_ltl_init")
    argv = ["--out", str(tmp_path / "out"), "--num", "200", "--batch", "32", "--seeds", "0", "1"]
    bench.main([*argv, "--report", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    rows = {row["scaling"]: row["cosines"] for row in report["rows"]}
    assert set(rows) == {"none", "sqrtd"} and all(len(seeds) == 2 for seeds in rows.values())
    for none, sqrtd in zip(rows["none"], rows["sqrtd"]):
        assert len(none) == len(sqrtd) == 3  # the blocks' input, after each of tiny's two blocks
        assert sqrtd[0] > 0.99 and none[0] > 0.9  # the positions added move the unscaled input more
        assert none[-1] < 0.6 < 0.9 < sqrtd[-1]
    lines = bench.table(report).splitlines()
    assert lines[0] == "| input scaling | seeds | the blocks' input | after block 1 | after block 2 |"
    assert lines[2].startswith("| none | 2 | ") and lines[3].startswith("| sqrtd | 2 | ")
