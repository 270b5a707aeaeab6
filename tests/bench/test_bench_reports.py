"""The analysis benchmarks' ``table(report)`` on tiny reports: each renders
the figures it is given (bench/tables.py puts them in the methods pages)."""

from __future__ import annotations

import pytest

from tests.bench import bench_module

LOAD = {"load_average_before": [0.5, 0.4, 0.3], "load_average_after": [1.5, 1.0, 0.5]}


def test_x86_parse_table_shows_medians_rates_and_their_ratio():
    bench = bench_module("bench_x86_parse")
    report = {"blocks": 1000, "tokens": 5000, "capstone_seconds": [0.1, 0.3, 0.2], "invar_seconds": [4.0, 2.0, 3.0]}
    text = bench.table({**report, **LOAD})
    assert "| capstone decode only | 0.20 s | 5,000 |" in text
    assert "| invar parse (decode + IR + semantics + dependencies) | 3.00 s | 333 |" in text
    assert "| ratio (invar / capstone) | 15.0× | |" in text
    assert "0.5 → 1.5" in text


def test_scaling_x86_table_shows_each_size_the_growth_and_what_went_over_a_limit():
    bench = bench_module("bench_scaling_x86")
    rows = [
        {"package": "invar", "command": "parse", "instructions": 10, "result": {"seconds": 1.0, "peak_mb": 10.0}},
        {"package": "invar", "command": "parse", "instructions": 100, "result": {"seconds": 4.0, "peak_mb": 20.0}},
        {"package": "invar", "command": "dlg", "instructions": 10, "result": {"over": "over 5 s"}},
        {"package": "invar", "command": "dlg", "instructions": 100, "result": None},
    ]
    library = {
        "10": {"seconds": 0.01, "tokens": 50, "deps": 9, "all_pairs": 30},
        "100": {"seconds": 0.1, "tokens": 500, "deps": 99},
    }
    args = {"sizes": [10, 100], "commands": ["parse", "dlg"], "before": None}
    text = bench.table({"args": args, "packages": ["invar"], "rows": rows, "library": library, **LOAD})
    assert "| `parse` | 10 | 1.00 s, 10 MB |  |" in text
    assert "|  | 100 | 4.00 s, 20 MB | ×4.0, ×2.0 |" in text
    assert "| `dlg` | 10 | over 5 s |  |" in text
    assert "|  | 100 | not run (over a limit at a smaller size) | – |" in text
    assert "| 10 instructions | 50 | 9 | 30 | 0.01 s |" in text
    assert "| 100 instructions | 500 | 99 | not computed | 0.10 s |" in text


def test_scaling_python_table_shows_each_size_the_growth_and_what_ran_over():
    bench = bench_module("bench_scaling_python")
    inputs = [{"size": 1000, "bytes": 1000, "lines": 40}, {"size": 100000, "bytes": 100000, "lines": 4000}]
    rows = [
        {"command": "parse", "version": "after", "size": 1000, "seconds": 1.0, "kb": 10240},
        {"command": "parse", "version": "after", "size": 100000, "seconds": 9.0, "kb": 40960},
        {"command": "dlg", "version": "after", "size": 1000, "seconds": 1.0, "kb": 10240},
        {"command": "dlg", "version": "after", "size": 100000, "seconds": None, "kb": None},
    ]
    report = {"versions": ["after"], "commands": ["parse", "dlg"], "inputs": inputs, "rows": rows, **LOAD}
    text = bench.table(report)
    assert "| `parse` | 1 KB (40) | 1.00 s, 10 MB |  |" in text
    assert "|  | 100 KB (4,000) | 9.00 s, 40 MB | ×3.0, ×2.0 |" in text
    assert "|  | 100 KB (4,000) | over the limit | – |" in text


def test_ltl_table_shows_rates_drops_and_the_checker():
    bench = bench_module("bench_ltl")
    row = {"size": 35, "aps": 5, "timeout": 10.0, "written": 4, "unsat": 1, "limits": 2, "generate_seconds": 2.0}
    text = bench.table({"rows": [{**row, "check_seconds": [0.001, 0.003, 0.002, 0.002]}], **LOAD})
    assert "| 35 | 5 | 10 s | 4 | 1 | 2 | 2.0 | " in text
    assert "| 500 | 2.0 ms | 3 ms |" in text
    assert bench.setting("50:10:2", 10.0) == (50, 10, 2.0) and bench.setting("35:5", 10.0) == (35, 5, 10.0)


def test_alta_compile_table_shows_each_program_and_the_spread_of_the_small_ones():
    bench = bench_module("bench_alta_compile")
    row = {"length": 12, "compile_ms": 1.0, "width": 8, "heads": 1, "onehot": 8, "agree": 4, "batch": 4}
    rows = [
        {
            **row,
            "program": "a",
            "rules": 3,
            "null_rules": 1,
            "compiled_per_s": 100.0,
            "interpreter_per_s": 50.0,
            "ratio": 2.0,
        },
        {
            **row,
            "program": "b",
            "rules": 5,
            "null_rules": 0,
            "compiled_per_s": 80.0,
            "interpreter_per_s": 10.0,
            "ratio": 8.0,
        },
        {
            **row,
            "program": "c",
            "rules": 1500,
            "null_rules": 0,
            "compiled_per_s": 1.0,
            "interpreter_per_s": 10.0,
            "ratio": 0.1,
        },
    ]
    text = bench.table({"rows": rows, **LOAD})
    assert "| a | 12 | 1.0 | 8 | 1 | 4 (3 + 1) | 8 | 100 | 50 | 2.00× | 4/4 |" in text
    assert "| c | 12 | 1.0 | 8 | 1 | 1,500 (1,500 + 0) |" in text
    assert "under 1,000 rules (2): the compiled forward is 2.0× (a) to 8.0× (b)" in text
    assert "median 5.0×" in text


def test_java_table_shows_the_census():
    bench = bench_module("bench_java")
    counts = {"files": 10, "files without a method": 2, "files read by javalang": 7, "methods read by javalang": 70}
    counts.update({"files read by tree-sitter": 1, "methods read by tree-sitter": 5, "methods both paths read": 70})
    report = {"jdk": "17", "args": {"step": 10}, "counts": counts, "failures": {}, "skipped": {"x": 1}, "differ": []}
    text = bench.table({**report, "seconds": {"javalang": 3.0, "tree-sitter": 2.0}, "census_seconds": 6.0, **LOAD})
    assert "| files javalang reads (methods) | 7 (70) |" in text
    assert "| files only tree-sitter reads (methods) | 1 (5) |" in text
    assert "| methods skipped | 1 |" in text
    assert "| seconds: javalang, tree-sitter, whole census | 3, 2, 6 |" in text


def test_train_table_shows_rates_relative_to_the_stock_encoder():
    bench = bench_module("bench_train")
    seconds = {"stock TransformerEncoder": [2.0, 1.0, 3.0], "vanilla": [1.0, 1.0, 5.0]}
    report = {"examples": 100, "batches": 2, "mean_tokens": 20.0, "args": {"repeat": 3}, "seconds": seconds}
    text = bench.table({**report, **LOAD})
    assert "| stock TransformerEncoder | 50 | 1.00 |" in text
    assert "| vanilla | 100 | 2.00 |" in text


def test_dlg_stdlib_table_shows_medians_per_function_and_file_and_the_ratio_to_parsing():
    bench = bench_module("bench_dlg_stdlib")
    files = [
        {"path": "a.py", "parse": 0.001, "after": [0.004, 2, 0]},
        {"path": "b.py", "parse": 0.002, "after": [0.010, 5, 1]},
        {"path": "c.py", "parse": 0.003, "after": [0.009, 3, 0]},
    ]
    text = bench.table({"files": files, "implementations": ["after"], "left_out": 1, **LOAD})
    assert "| measure | figure |" in text
    assert "| functions (skipped) in 3 files (1 left out) | 10 (1) |" in text
    assert "| median per function | 2.000 ms |" in text
    assert "| median per file | 9.00 ms |" in text
    assert "| median `ast.parse` per file | 2.00 ms |" in text
    assert "| (frontend + DLG) / `ast.parse`, median per file | 4.00 |" in text
    assert "| (frontend + DLG) / `ast.parse`, in total | 3.83 |" in text


def test_label_table_shows_both_paths_and_the_speed_up():
    bench = bench_module("bench_label")
    report = {"args": {"blocks": 100, "single": 10}, "llvm_mca": "14.0.6", **LOAD}
    text = bench.table({**report, "batched_seconds": [0.2, 0.1, 0.3], "single_seconds": [1.0, 2.0, 3.0]})
    assert "| batched: 100 blocks in one llvm-mca process | 500 |" in text
    assert "| one llvm-mca process per block (10 blocks) | 5 |" in text
    assert "| speed-up | 100.0× |" in text


def test_label_corpus_table_shows_the_whole_corpus():
    bench = bench_module("bench_label")
    corpus = {"seconds": 120.0, "blocks": 1200, "labelled": 1199, "splits": {"train": 1000, "valid": 100, "test": 99}}
    report = {"args": {"jobs": 2}, "llvm_mca": "14.0.6", "corpus": {**corpus, "rejected": {"invar": 1, "llvm-mca": 0}}}
    text = bench.table({**report, **LOAD})
    assert "| time | 2.0 min (10 blocks/s) |" in text
    assert "| labelled | 1,199 (1,000 train, 100 valid, 99 test) |" in text
    assert "| rejected | 1 by invar, 0 by llvm-mca |" in text


def test_linext_table_shows_exact_counts_and_the_chain_per_size():
    bench = bench_module("bench_linext")
    exact = {"downsets": 1200, "digits": 9}
    blocks = [
        {**exact, "count_seconds": 0.001, "sample_seconds": 0.02},
        {**exact, "count_seconds": 0.003, "sample_seconds": 0.04},
        {"refuse_seconds": 0.5, "chain_seconds": 4.0},
    ]
    report = {"args": {"samples": 200, "chain_samples": 2}, "rows": [{"lines": 40, "blocks": blocks}], **LOAD}
    text = bench.table(report)
    assert "| 40 | 2/3 | 2.0 ms | 1,200 | 8 | 7,500 | 0.50 s | 0.50 |" in text
    assert "0.5 → 1.5" in text


def test_linext_bhive_table_shows_the_share_counted_exactly_and_the_draws():
    bench = bench_module("bench_linext_bhive")
    result = {"unparsed": 1, "exact": 3, "block_seconds": [0.001, 0.002, 0.5, 0.003]}
    report = {"results": {"after": {**result, "sample_seconds": [0.0001, 0.0003], "sample_over": 1}}, **LOAD}
    text = bench.table(report)
    assert "| blocks (not parsed) | 4 (1) |" in text
    assert "| counted exactly | 3 (75.00 %) |" in text
    assert "| median time per block (parse + count) | 2.50 ms |" in text
    assert "| slowest block | 0.50 s |" in text
    assert "| blocks that drew one order | 3 |" in text
    assert "| median time of one draw | 0.20 ms |" in text
    assert "| draws over 30 s | 1 |" in text


def test_renamings_table_shows_medians_rates_and_their_ratio():
    bench = bench_module("bench_renamings")
    seconds = {"invar_seconds": [0.6, 0.5, 0.4], "naive_seconds": [0.2, 0.25, 0.3]}
    text = bench.table({"args": {"n": 1000}, "space": 3360, **seconds, **LOAD})
    assert "| 3,360 renamings, 1,000 draws, 3 runs each | median time | renamings/s |" in text
    assert "| invar: exact uniform sample + render | 0.500 s | 2,000 |" in text
    assert "| naive `random.sample` + `str.replace` | 0.250 s | 4,000 |" in text
    assert "| ratio (invar / naive) | 2.00× | |" in text


def test_scaling_referents_table_shows_medians_and_what_hit_a_limit():
    bench = bench_module("bench_scaling_referents")
    rows = [
        {"command": "renamings --count", "size": 1000, "runs": {"after": [["ok", 1.0, 2048], ["ok", 3.0, 4096]]}},
        {"command": "renamings --count", "size": 100000, "runs": {"after": [["time", 300.4, 2**21]]}},
    ]
    args = {"shape": "locals", "cap_gb": 8.0}
    text = bench.table({"versions": ["after"], "args": args, "rows": rows, **LOAD})
    assert "| command | locals | time | peak memory |" in text
    assert "| renamings --count | 1,000 | 2.00 s | 3 MB |" in text
    assert "| renamings --count | 100,000 | over the limit after 300 s | 2.0 GB resident |" in text
    zipper = bench.table({"versions": ["after"], "args": {**args, "shape": "zipper"}, "rows": rows[:1], **LOAD})
    assert "| command | pairs | time | peak memory |" in zipper


def test_register_sweep_table_shows_the_counts_per_cpu_and_each_mnemonic():
    bench = bench_module("bench_register_sweep")
    found = {
        "adcq imm,gpr:64": {"mnemonic": "adcq", "bhive": True, "cpus": ["haswell"], "special": ["gpr:a"]},
        "mulq gpr:64": {"mnemonic": "mulq", "bhive": False, "cpus": ["haswell", "skylake"], "special": ["gpr:a"]},
        "mulq mem:b": {"mnemonic": "mulq", "bhive": True, "cpus": ["haswell", "skylake"], "special": ["gpr:d"]},
    }
    report = {"forms": 3000, "bhive_forms": 1000, "instances": 5000, "rejected": 7, "blocks": 40000, "seconds": 60.4}
    report.update({"cpus": ["haswell", "skylake"], "jobs": 2, "rule_groups": 4, "found": found, **LOAD})
    report.update({"refused": {"haswell": 0, "skylake": 1}, "evex_dependent": [], "evex": {"forms": 18, "blocks": 90}})
    report["dependent"] = {"haswell": sorted(found), "skylake": ["mulq gpr:64", "mulq mem:b"]}
    text = bench.table(report)
    assert "| forms swept | 3,000 (1,000 from BHive, 2,000 more from generated blocks) |" in text
    assert "| blocks timed | 40,000 (two shapes per instance, 2 CPU models) + 90 EVEX-only |" in text
    assert "| run time | 60 s (wall clock, 2 processes) |" in text
    assert "| haswell | 3 | 2 | 0 |" in text
    assert "| skylake | 2 | 1 | 1 |" in text
    assert "| 0 of 18 | – | – |" in text
    assert "| `adcq` | 1 (1) | gpr:a | haswell |" in text
    assert "| `mulq` | 2 (1) | gpr:a, gpr:d | all |" in text


def test_names_table_shows_both_f1s_and_the_violations_over_seeds():
    bench = bench_module("bench_names")

    def run(seed, f1, per_function, rate):
        extra = {"F1 (per function)": per_function}
        return {"seed": seed, "test_metric": f1, "extra": extra, "best_epoch": 4, "epochs_run": 6}, rate

    runs = [run(0, 20.0, 18.0, 0.02), run(1, 22.0, 20.0, None)]
    both = {"both": {"varied": 38}}
    rows = [
        {**r, "violation_rate": rate, "audited": 183, "test_functions": 596, "transforms": both, "train_seconds": 60.0}
        for r, rate in runs
    ]
    report = {"task": "names", "metric": "F1", "settings": {"epochs": 30}, "runs": {"spe": rows}}
    text = bench.table(report)
    assert (
        "| spe | 21.0 ± 1.4 % | 19.0 ± 1.4 % | 4.0 ± 0.0 / 6 | 2.0 ± 0.0 % | 596 | 183 / 183 (38 can vary) | 1.0 |"
        in text
    )
    rows[1].pop("transforms")  # a run audited before the transforms were: the others' count stands
    assert "| 596 | 183 / 183 (38 can vary) |" in bench.table(report)
    assert "Mean ± sd over seeds 0, 1." in text
    bugs = bench.table({**report, "task": "bugs", "metric": "accuracy"})
    assert "per function" not in bugs


def test_copy_seeds_table_shows_each_seed_and_the_mean():
    bench = bench_module("bench_copy")

    def seed(s, exact, distance):
        run = {"by_symbols": {"1-5": [distance, 10]}, "exact": exact, "best_epoch": 9, "epochs_run": 15}
        run["train_seconds"] = 600.0
        settings = {"train": 100, "epochs": 60, "patience": 6, "sampler": "distinct"}
        return {**settings, "seed": s, "results": {"dualpart": run}}

    text = bench.table(bench.merged([seed(0, 0.9, 0.5), seed(1, 0.7, 1.5)]))
    assert "| dualpart, 0 | 0.50 | 90.0 % | 9 / 15 | 10 |" in text
    assert "| **dualpart**, mean ± sd | 1.00 ± 0.71 | **80.0 ± 14.1 %** | | |" in text
    with pytest.raises(SystemExit):
        bench.merged([seed(0, 0.9, 0.5), {**seed(1, 0.7, 1.5), "sampler": "uniform"}])


def test_alta_summaries_give_each_model_its_slices_beside_the_papers_row():
    trace = bench_module("bench_alta_trace")
    slices = {"Length ≤ 20": [1.0, 338], "Length > 20": [0.705, 1660], "Ones > 20": [0.494, 965]}
    report = {"results": [{"program": "parity-sum-count", "config": {"steps": 100000}, "trained": slices}]}
    row = trace.summary(report).splitlines()[2]
    assert row == (
        "| Sum + Modulo (`parity-sum-count`), from traces, 100,000 steps | 100% | 70% | 49% | *100% / 78% / 50%* |"
    )
    end = bench_module("bench_alta_end_to_end")
    runs = [
        {"layers": 2, "sharing": True, "positions": "absolute", "Length ≤ 20": a, "Length > 20": 0.5, "Ones > 20": 0.5}
        for a in (0.9, 1.0)
    ]
    row = end.summary({"results": runs}).splitlines()[2]
    assert row == (
        "| end to end, 2 layers, absolute, shared | 95.0 ± 7.1 % | 50.0 ± 0.0 % | 50.0 ± 0.0 % | *100% / 50% / 52%* |"
    )


def test_copy_summary_sets_seeds_and_single_runs_side_by_side():
    bench = bench_module("bench_copy")

    def run(seed, exact):
        by = {b: [float(seed), 10] for b in bench.BUCKETS}
        return {"seed": seed, "results": {"dualpart": {"by_symbols": by, "exact": exact}}}

    settings = {"train": 100, "epochs": 60, "patience": 6, "sampler": "distinct"}
    merged = {**settings, "seeds": [run(0, 0.9), run(2, 0.7)]}
    single = {**settings, "patience": None, "epochs": 30, "sampler": "uniform", **run(0, 0.5)}
    rows = bench.summary([merged, single]).splitlines()
    assert rows[2] == (
        "| `dualpart`, distinct training strings, to a patience of 6, 2 seeds | "
        + " | ".join(["1.00 ± 1.41"] * 6)
        + " | 80.0 ± 14.1 % |"
    )
    assert (
        rows[3]
        == "| `dualpart`, uniform training strings, 30 epochs, seed 0 | " + " | ".join(["0.00"] * 6) + " | 50.0 % |"
    )
    assert rows[4].startswith("| `vanilla` | every test string refused |")


def test_train_tables_show_each_architecture_beside_the_paper_and_its_epochs():
    bench = bench_module("bench_train_tables")

    def row(history, test, renamed):
        sizes = {"size": "tiny", "train_programs": 1000, "valid_programs": 100, "test_programs": 100, "epochs": 3}
        result = {"valid_history": history, "best_epoch": history.index(min(history)) + 1, "train_seconds": 600}
        return {**sizes, **result, "test_MAPE": test, "test_MAPE_renamed": renamed, "renamings_changing_cycles": 1}

    rows = {"vanilla": row([20.0, 14.0, 13.0], 13.0, 14.0), "renamer": row([18.0, 16.0, 15.5], 15.0, 15.0)}
    reorders = {"blocks_changed": 3, "blocks_with_orders": 12, "median_change": 0.004, "max_change": 0.5}
    report = {"machine": "M", "torch": "T", "rows": rows, "reorders": {**reorders, "invariant_floor_MAPE_on_them": 0.1}}
    text = bench.table(report)
    assert "| vanilla | 13.00% | 14.00% | 3.30% / 5.26% | 3 | 3 | 2 | 10 min |" in text
    assert "| renamer | 15.00% | 15.00% | 2.39% / 2.39% | 3 | not in 3 | not in 3 | 10 min |" in text
    assert "| renamer | 18.0 | 16.0 | 15.5 |" in text
    assert "cycles differ from the original's: 1. Reorderings: 3 of 12 test blocks" in text


def test_names_by_transform_shows_seed_0_of_each_corpus_over_all_and_over_what_can_vary():
    bench = bench_module("bench_names")

    def run(seed, metric, perm, ren):
        audits = {
            "permutations": {"audited": 190, "violations": perm, "varied": 11, "varied_violations": perm},
            "renamings": {"audited": 190, "violations": ren, "varied": 59, "varied_violations": ren},
            "both": {"audited": 190, "violations": ren, "varied": 0, "varied_violations": 0},
        }
        return {"seed": seed, "test_metric": metric, "transforms": audits}

    stdlib = {"task": "names", "metric": "F1", "settings": {}, "runs": {"spe": [run(1, 1.0, 5, 5), run(0, 25.7, 0, 7)]}}
    jdk = {
        "task": "names",
        "metric": "F1",
        "settings": {"corpus": "JDK 17"},
        "runs": {"vanilla": [run(0, 20.4, 1, 14)]},
    }
    lines = bench.by_transform([stdlib, jdk]).splitlines()
    assert lines[0].startswith("| names, first seed | test F1 | reorderings: all | reorderings: can vary | renamings")
    assert lines[2] == (
        "| standard library, `spe` | 25.7 % | 0.0 % (0 of 190) | 0.0 % (0 of 11) | 3.7 % (7 of 190) "
        "| 11.9 % (7 of 59) | 3.7 % (7 of 190) | – (0 of 0) |"
    )
    assert lines[3].startswith("| JDK 17, `vanilla` | 20.4 % | 0.5 % (1 of 190) | 9.1 % (1 of 11) | 7.4 % (14 of 190)")
    assert len(lines) == 4


def test_names_summary_puts_each_corpus_beside_the_other_and_the_papers_rows_after():
    bench = bench_module("bench_names")

    def report(corpus, runs):
        return {"task": "bugs", "metric": "accuracy", "settings": {"corpus": corpus, "seeds": [0, 1]}, "runs": runs}

    python = report("standard library", {"spe": [{"test_metric": 50.0, "violation_rate": 0.0}] * 2})
    java = report(
        "JDK 17",
        {"spe": [{"test_metric": 52.0, "violation_rate": 0.01}, {"test_metric": 54.0, "violation_rate": None}]},
    )
    lines = bench.summary([python, java]).splitlines()
    assert (
        lines[0]
        == "| model | standard library accuracy, 2 seeds | violations | JDK 17 accuracy, 2 seeds | violations |"
    )
    assert lines[2] == "| `spe` | 50.0 ± 0.0 % | 0.0 ± 0.0 % | 53.0 ± 1.4 % | 1.0 % |"
    assert lines[3] == "| *paper, Table 4 (Defect4J, F1)* |  |  | *SPE 71.3, SYMC 68.8* | *0* |"


def test_copy_decodings_shows_each_beam_per_seed_then_mean_and_sd():
    bench = bench_module("bench_copy")

    def run(seed, greedy, beam):
        decoding = lambda d, e: {"by_symbols": {"1-5": [d, 10]}, "exact": e}  # noqa: E731
        return {"seed": seed, "results": {"dualpart": {"decodings": {"1": decoding(*greedy), "3": decoding(*beam)}}}}

    lines = bench.decodings({"seeds": [run(0, (0.0, 1.0), (3.0, 0.9)), run(1, (0.2, 0.98), (5.0, 0.8))]}).splitlines()
    assert lines[0] == "| architecture, seed | decoding | 1-5 symbols | copied exactly |"
    assert lines[2:4] == ["| dualpart, 0 | greedy | 0.00 | 100.0 % |", "| dualpart, 0 | beam 3 | 3.00 | 90.0 % |"]
    assert lines[6] == "| **dualpart**, mean ± sd | greedy | 0.10 ± 0.14 | **99.0 ± 1.4 %** |"
    assert lines[7] == "| **dualpart**, mean ± sd | beam 3 | 4.00 ± 1.41 | **85.0 ± 7.1 %** |"


def test_listing_table_counts_blocks_refusals_and_disagreements():
    bench = bench_module("bench_listing")
    report = {
        "compiler": "gcc 12",
        "settings": ["-O2", "-O0 -g"],
        "files_found": 10,
        "files": ["doc/a.c", "doc/b.c"],
        "totals": {"listings": 4, "blocks": 1200, "accepted": 1190, "instructions": 5000},
        "refused": {"assembler directive '.byte' places data where instructions run": 10},
        "problems": [],
        "machine": "a CPU, 2 cores",
        "wall_seconds": 12.0,
        **LOAD,
    }
    text = bench.table(report)
    assert "| C files found / compiled on their own | 10 / 2 |" in text
    assert "| basic blocks | 1,200 |" in text and "| blocks invar reads | 1,190 |" in text
    assert "| **disagreements with GNU as** | **0** |" in text
    assert "| assembler directive '.byte' places data where instructions run | 10 |" in text
    assert "`-O0 -g`" in text and "0.5 → 1.5" in text
