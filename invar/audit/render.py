"""The report for people: rich tables on the terminal, a histogram in text,
a self-contained HTML page, and (with matplotlib) a PNG or SVG plot."""

from __future__ import annotations

import html
import importlib.util
import json
from typing import Sequence

from ..errors import UsageError


def _num(x, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return f"{x:,}"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}" if abs(x) < 1e-3 or abs(x) >= 1e4 else f"{x:.{digits}f}".rstrip("0").rstrip(".")


def _share(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1f}%"


#: metrics in percent
_PERCENT = ("MAPE", "accuracy", "correct", "exact", "exact match")


def headline(report: dict) -> list[str]:
    """The lines above the tables: what was audited, against what."""
    m, d, t = report["model"], report["dataset"], report["task"]
    what = m.get("path") or "a model in memory"
    model = {
        "checkpoint": f"{m.get('arch')} {m.get('size')} ({what})",
        "torchscript": f"TorchScript {what}",
        "callable": what,
        "http": f"{m.get('name')} at {what}",
    }[m["kind"]]
    where = d["name"] + (f", {d['split']} split" if d.get("split") else "")
    if d.get("files_without_programs"):
        n = d["files_without_programs"]
        where += f" ({n:,} file{'s' if n != 1 else ''} holding no program left out)"
    s = report["settings"]
    symmetry = (
        f"a task symmetry of {t['name']}"
        if report["task_symmetry"]
        else f"not a task symmetry of {t['name']}: its labels may change"
        + ("" if s["oracle"] or not _has_oracle(t["name"]) else "; --oracle measures how much")
    )
    lines = [
        f"audit of {model} on {where}",
        f"{report['transform']} ({symmetry}); up to {s['variants']:,} per example, seed {s['seed']}",
    ]
    table = report.get("table")
    if table is not None:
        lines.append(TABLES_READ[table])
    few = _few_vary(report)
    if few:
        lines.append(few)
    return lines


def _has_oracle(task: str) -> bool:
    """Whether ``--oracle`` can label this task's variants: the task's own
    oracle (bhive: llvm-mca), or for alta the interpreter a compiled
    checkpoint carries; a language model has none."""
    from ..tasks import get_task

    try:
        return get_task(task).oracle is not None or task == "alta"
    except UsageError:  # a task this invar does not know (a report from elsewhere): say nothing of it
        return False


def _few_vary(report: dict) -> str | None:
    """The headline's line when under half the audited examples can vary
    (the others have no variant besides the original, cannot violate, and
    dilute the violation rate): how many, and the violation rate over them
    beside the rate over all; None otherwise."""
    n, varied = report["audited"], report.get("varied")
    if varied is None or not 0 < varied["examples"] < n / 2:
        return None
    k = varied["examples"]
    return (
        f"only {k:,} of the {n:,} audited examples can vary ({100 * k / n:.0f} %; the others have no variant "
        f"besides the original): violation rate {_share(varied['violation_rate'])} over them, "
        f"{_share(report['violation_rate'])} over all"
    )


#: the line that says what a language model's audit measured (report ``table``)
TABLES_READ = {
    "own": "lexical permutations, table: the model's own (invariance in distribution: one draw of its random table)",
    "along": "lexical permutations, table: permuted along each variant's renaming (exact invariance)",
    "learned": "lexical permutations, table: learned (the embedding is fixed: nothing random to permute along)",
}


def tables(report: dict, console) -> None:
    """The report as rich tables on ``console``."""
    from rich.table import Table

    for line in headline(report):
        console.print(line, markup=False, highlight=False)
    rows = summary_rows(report)
    table = Table(show_header=True)
    table.add_column("measure")
    table.add_column("value")
    intervals = report.get("intervals")
    if intervals is not None:
        table.add_column(f"{intervals['confidence']:.0%} interval")
    for a, b, c in rows:
        table.add_row(a, b, *([c] if intervals is not None else []))
    console.print(table)
    for line in read_together(report):
        console.print(line, markup=False, highlight=False)
    _referent_table(report, console)
    _sensitivity_table(report, console)
    worst = report["worst_examples"][:5]
    if worst:
        t3 = Table(show_header=True, title="largest differences")
        for col in ("example", "prediction", "most different variant", "relative range"):
            t3.add_column(col)
        for w in worst:
            t3.add_row(
                w["id"], _short(w["prediction"]), _short(w["most_different"]["prediction"]), _num(w["relative_range"])
            )
        console.print(t3)
    if report["example"] is not None:
        for line in histogram_lines(report["example"]):
            console.print(line, markup=False, highlight=False)


def summary_rows(report: dict) -> list[tuple[str, str, str]]:
    """The summary table's rows: (measure, value, confidence interval or "")."""
    rows = [
        (
            "examples",
            f"{report['audited']:,} audited of {report['examples']:,}"
            + (f"; {report['errors']:,} failed in the model" if report["errors"] else "")
            + (f"; {report['unparsable']:,} unparsable" if report["unparsable"] else ""),
            "",
        ),
        ("predictions", _num(report["predictions"]), ""),
        *_label_rows(report),
    ]
    metric = report["metric"]
    within = ((report.get("intervals") or {}).get("metric")) or {}
    if metric is not None:
        fmt = _pct if metric["name"] in _PERCENT else _num
        rows += [
            (f"{metric['name']} on originals", fmt(metric["original"]), _interval(within.get("original"), fmt)),
            (f"{metric['name']} on variants", fmt(metric["variants"]), _interval(within.get("variants"), fmt)),
            (f"{metric['name']}, worst variant per example", fmt(metric["worst"]), _interval(within.get("worst"), fmt)),
        ]
        chance = metric.get("chance")
        if chance is not None:
            rows.append(
                (
                    f"{metric['name']} at chance ({chance['rule']}: {_short(chance['prediction'])})",
                    fmt(chance["value"]),
                    "",
                )
            )
        for name, extra in (metric.get("extra") or {}).items():
            efmt = _pct if name in _PERCENT else _num
            rows += [
                (f"{name} on originals", efmt(extra["original"]), ""),
                (f"{name} on variants", efmt(extra["variants"]), ""),
            ]
    paired = report.get("paired")
    if paired is not None:
        rows.append(
            (
                "right on the original only / on a variant only",
                f"{paired['original_only']:,} / {paired['variant_only']:,} (McNemar p = {_p(paired['p_value'])})",
                "",
            )
        )
    rows += _invariance_rows(report) + _noise_rows(report) + _sensitivity_rows(report) + _reply_rows(report)
    oracle = report["oracle"]
    if oracle is not None and _runs_code(report):
        # a variant is the same program: a result it changes, or an error it raises, is invar's own error
        own = oracle["label_changes"] + oracle["errors"]
        rows.append(
            (
                "INVAR'S OWN ERRORS: variants run to another result or error"
                if own
                else "variants run to the original's result (oracle)",
                f"{own:,} of {oracle['examples'] + oracle['errors']:,} examples",
                "",
            )
        )
    elif oracle is not None:
        rows.append(
            (
                "label changes (oracle)",
                f"{_share(oracle['label_change_rate'])} ({oracle['label_changes']:,} of {oracle['examples']:,})"
                + (f"; {oracle['errors']:,} oracle errors" if oracle["errors"] else ""),
                "",
            )
        )
        rows.append(("violations without a label change", _num(oracle["violations_without_label_change"]), ""))
    return rows


def _label_rows(report: dict) -> list[tuple[str, str, str]]:
    """The labels a text model's prompt offered, and those no reply can be read as (quoted as JSON, so
    that ``3`` and ``"3"`` read apart): none where the prompt offered none."""
    offered = report.get("labels_offered")
    if not offered:
        return []
    never = report.get("labels_unanswerable") or []
    shown = ", ".join(json.dumps(x, ensure_ascii=False) for x in never[:5]) + (", …" if len(never) > 5 else "")
    value = f"{len(offered):,}" + (f"; no reply can be read as {len(never):,} of them ({shown})" if never else "")
    return [("labels the prompt offers", value, "")]


def _runs_code(report: dict) -> bool:
    """Whether the audited task's oracle runs the programs (output prediction)."""
    from ..tasks import get_task

    return getattr(get_task(report["task"]["name"]), "runs_code", False)


def _interval(pair, fmt=None) -> str:
    if not pair:
        return ""
    fmt = fmt or _share
    return f"{fmt(pair[0])} to {fmt(pair[1])}"


def _p(x: float) -> str:
    return "-" if x is None else f"{x:.2g}" if x < 0.001 else f"{x:.3f}"


def _referent_table(report: dict, console) -> None:
    from rich.table import Table

    by = report["alpha_covariance"]["by_referents"]
    if len(by) <= 1:
        return
    metric = report["metric"]
    t2 = Table(show_header=True, title="by renamable referents")
    # sequence tasks add their metrics per group (the paper's tables by AP count)
    named = metric["name"] if metric is not None and any("metric" in g for g in by) else None
    extras = list(by[0].get("extra") or {}) if named else []
    for col in ("referents", "examples", *([named] if named else []), *extras, "violation rate", "alpha-covariance"):
        t2.add_column(col)
    for g in by:
        cells = [_num(g["referents"]), _num(g["examples"])]
        if named:
            cells.append((_pct if named in _PERCENT else _num)(g.get("metric")))
            cells += [(_pct if e in _PERCENT else _num)((g.get("extra") or {}).get(e)) for e in extras]
        t2.add_row(*cells, _share(g["violation_rate"]), _share(g["alpha_covariance"]))
    console.print(t2)


def _invariance_rows(report: dict) -> list[tuple[str, str, str]]:
    """The summary's rows of invariance: violation rate and alpha-covariance
    (also over the examples that can vary, when some cannot), and the spread."""
    n = report["audited"]
    varied = report.get("varied")
    within = report.get("intervals") or {}
    some_vary = varied is not None and 0 < varied["examples"] < n  # the others have no variant but the original
    rows = [
        (
            "violation rate",
            f"{_share(report['violation_rate'])} ({report['violations']:,} of {n:,})",
            _interval(within.get("violation_rate")),
        )
    ]
    if some_vary:
        rows.append(
            (
                "violation rate, examples that can vary",
                f"{_share(varied['violation_rate'])} ({report['violations']:,} of {varied['examples']:,})",
                "",
            )
        )
    rows.append(
        ("alpha-covariance", _share(report["alpha_covariance"]["mean"]), _interval(within.get("alpha_covariance")))
    )
    if some_vary:
        rows.append(("alpha-covariance, examples that can vary", _share(varied.get("alpha_covariance")), ""))
    spread = report["spread"]
    if spread is not None:
        for key, label in (("range", "range"), ("relative_range", "relative range")):
            q = spread[key]
            rows.append(
                (f"{label} (median / p90 / max)", f"{_num(q['median'])} / {_num(q['p90'])} / {_num(q['max'])}", "")
            )
    return rows


def _noise_rows(report: dict) -> list[tuple[str, str, str]]:
    """The noise floor: how often the model disagrees with itself, beside how
    often it disagrees across variants, and what the test counts."""
    noise = report.get("noise")
    if noise is None:
        return []
    return [
        (
            f"noise floor: two answers to one original differ ({noise['repeats']} repeats)",
            _share(noise["self_disagreement"]),
            _interval(noise["self_disagreement_interval"]),
        ),
        (
            "an answer to the original and one to a variant differ",
            _share(noise["cross_disagreement"]),
            _interval(noise["cross_disagreement_interval"]),
        ),
        (
            "examples whose variants differ beyond the noise",
            f"{noise['violations']:,} of {noise['examples']:,} (false-discovery rate {noise['level']:g}; "
            f"{noise['uncorrected']:,} at p <= {noise['level']:g} uncorrected)",
            "",
        ),
    ]


def _sensitivity_rows(report: dict) -> list[tuple[str, str, str]]:
    """Sensitivity on controls, never blended with invariance: its own rows."""
    sens = report.get("sensitivity")
    if sens is None:
        return []
    of = f"{sens['changed']:,} of {sens['judged']:,}"
    counted = f"{of} that change the label" if sens["on"] == "label_changed" else f"{of}; label change unchecked"
    return [
        (
            "answer changed on a control (sensitivity)",
            f"{_share(sens['change_rate'])} ({counted})",
            _interval(sens["change_rate_interval"]),
        )
    ]


def _sensitivity_table(report: dict, console) -> None:
    from rich.table import Table

    sens = report.get("sensitivity")
    if sens is None or not sens["by_kind"]:
        return
    t = Table(show_header=True, title="sensitivity by kind of control")
    for col in ("control", "controls", "label changes", "answer changed"):
        t.add_column(col)
    for kind, k in sens["by_kind"].items():
        t.add_row(kind, _num(k["controls"]), _num(k["label_changed"]), f"{_share(k['change_rate'])} ({k['changed']:,})")
    console.print(t)


def _reply_rows(report: dict) -> list[tuple[str, str, str]]:
    """What became of a text model's requests."""
    replies = report.get("replies")
    if replies is None:
        return []
    rows = []
    if (report.get("model") or {}).get("kind") == "http":  # the others send no request (their failures count here)
        rows.append(
            (
                "requests",
                f"{replies['sent']:,} sent for {replies['inputs']:,} inputs; {replies['from_cache']:,} "
                f"from the cache; {replies['rate_limited']:,} rate-limited; {replies['waited']:.1f} s waited "
                "before retries (summed over inputs)",
                "",
            )
        )
    served = replies.get("served") or {}  # reports written before replies said their model have none
    if served:
        rows.append(("answered by", "; ".join(f"{name} ({n:,})" for name, n in served.items()), ""))
    if replies["ambiguous"]:
        rows.append(("replies with more than one candidate answer", _num(replies["ambiguous"]), ""))
    return rows


def read_together(report: dict) -> list[str]:
    """The lines under the summary that send the reader from invariance to
    the metric: a model is only as good as both."""
    trivial = report.get("trivial") or {}
    out = [f"note: {note}." for note in trivial.get("notes") or []]
    if report["audited"] and report["metric"] is None:
        out.append(
            "note: no labels, so no metric: invariance alone cannot tell a useful model from a constant; "
            f"to see both, {_label_ways(report['task']['name'])}"
        )
    elif out:
        out.append("note: read the violation rate beside the metric: a model is only as good as both")
    return out


def _label_ways(task: str) -> str:
    """How to label this task's examples, as the note on standard error says it."""
    from ..tasks import get_task
    from .datasets import label_ways

    try:
        return ", or ".join(label_ways(get_task(task)))
    except UsageError:  # a task this invar does not know (a report from elsewhere)
        return "label the examples"


def _short(x) -> str:
    return _num(x, 4) if isinstance(x, float) else words(x)[:40]


def words(prediction) -> str:
    """A prediction as people read it: a list of words (a names model's
    subtokens) as the words, space-separated, not a Python tuple; anything
    else as its text. JSON keeps the list."""
    if isinstance(prediction, (list, tuple)) and all(isinstance(w, str) for w in prediction):
        return " ".join(prediction)
    return str(prediction)


def histogram_lines(example: dict, width: int = 50) -> list[str]:
    """One example's predictions as a text histogram (the Renamer paper's
    Figure 2 in a terminal)."""
    out = [f"example {example['id']}: {example['variants']:,} variants, {example['distinct']:,} distinct predictions"]
    if example["histogram"] is None:
        for value, count in example["counts"]:
            out.append(f"  {words(value)[:30]:>30} {count:>9,}")
        return out
    out[0] += f"; range {_num(example['min'], 4)} to {_num(example['max'], 4)}, mean {_num(example['mean'], 4)}" + (
        f", label {_num(example['label'], 4)}" if example["label"] is not None else ""
    )
    h = example["histogram"]
    top = max(h["counts"]) if h["counts"] else 0
    for k, c in enumerate(h["counts"]):
        lo, hi = h["edges"][k], h["edges"][k + 1]
        bar = "#" * (round(width * c / top) if top else 0)
        out.append(f"  {lo:>9.4f} - {hi:<9.4f} {c:>9,} {bar}")
    return out


# ---------------------------------------------------------------------- plot
#: how to install the optional plotting extra: from PyPI, and from a clone of the repository
PLOT_INSTALL = "pip install 'invar[plot]' (from PyPI; in a clone of invar: pip install -e '.[plot]')"


def check_plot(path: str) -> None:
    """UsageError unless :func:`plot` can write ``path``: a ``.png`` or
    ``.svg`` name, and matplotlib installed. Cheap, so a command checks it
    before its work, not after."""
    if not str(path).lower().endswith((".png", ".svg")):
        raise UsageError("--plot writes .png or .svg files", path="--plot")
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # a module set to None or without a spec: not importable
        found = False
    if not found:
        raise UsageError(f"--plot needs matplotlib: {PLOT_INSTALL}", path="--plot")


def plot(
    values: Sequence[float], path: str, *, title: str, xlabel: str, ylabel: str = "examples", nonnegative: bool = False
) -> None:
    """A histogram of ``values`` written to ``path`` (PNG or SVG, by its
    extension) with matplotlib; the y axis counts ``ylabel`` (whole numbers),
    and a ``nonnegative`` measure (the relative range) starts at 0, even when
    every value is 0 (an exactly invariant model)."""
    check_plot(path)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:  # found but broken
        raise UsageError(f"--plot needs matplotlib: {PLOT_INSTALL}", path="--plot") from None
    values = [float(v) for v in values]
    span = None
    if nonnegative and values:
        top = max(values)
        span = (0.0, top if top > 0 else 1.0)  # all 0: one bar at 0 on an axis from 0 to 1
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "invar"}):  # SVG text stays text
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        ax.hist(values, bins=60, range=span, color="#4c72b0")
        if span is not None:
            ax.set_xlim(span)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title, fontsize=10)
        fig.tight_layout()
        fig.savefig(path, metadata={"Date": None} if str(path).lower().endswith(".svg") else None)
        plt.close(fig)


# ---------------------------------------------------------------------- HTML
_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
pre{background:#f6f6f6;padding:.6em;margin:0;overflow-x:auto}mark{background:#ffd54f}
.moved{background:#e3f2fd}.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;margin-bottom:1.5em}
h3{margin-bottom:.3em}.muted{color:#666}
"""


def _svg_histogram(h: dict, xlabel: str, ylabel: str = "examples") -> str:
    if not h or not h.get("counts"):
        return "<p class='muted'>no values to plot</p>"
    w, ht, pad = 640, 220, 40
    counts, edges = h["counts"], h["edges"]
    top = max(counts) or 1
    bw = (w - 2 * pad) / len(counts)
    bars = []
    for k, c in enumerate(counts):
        bh = (ht - 2 * pad) * c / top
        bars.append(
            f"<rect x='{pad + k * bw:.1f}' y='{ht - pad - bh:.1f}' width='{max(bw - 1, 1):.1f}' "
            f"height='{bh:.1f}' fill='#4c72b0'><title>{edges[k]:.4g} to {edges[k + 1]:.4g}: {c}</title></rect>"
        )
    labels = (
        f"<text x='{pad}' y='{ht - pad + 15}' font-size='11'>{edges[0]:.4g}</text>"
        f"<text x='{w - pad}' y='{ht - pad + 15}' font-size='11' text-anchor='end'>{edges[-1]:.4g}</text>"
        f"<text x='{w / 2}' y='{ht - 5}' font-size='12' text-anchor='middle'>{html.escape(xlabel)}</text>"
        f"<text x='{pad - 5}' y='{pad}' font-size='11' text-anchor='end'>{top}</text>"
        f"<text x='12' y='{ht / 2}' font-size='12' text-anchor='middle' transform='rotate(-90 12 {ht / 2})'>"
        f"{html.escape(ylabel)}</text>"
    )
    axis = f"<line x1='{pad}' y1='{ht - pad}' x2='{w - pad}' y2='{ht - pad}' stroke='#333'/>"
    return f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{ht}'>{''.join(bars)}{axis}{labels}</svg>"


def _marked(lines: Sequence[str], changed: Sequence[Sequence[int]] = (), moved: Sequence[int] = ()) -> str:
    spans: dict[int, list[tuple[int, int]]] = {}
    for li, a, b in changed:
        spans.setdefault(li, []).append((a, b))
    out = []
    for li, text in enumerate(lines):
        pieces, pos = [], 0
        for a, b in sorted(spans.get(li, [])):
            pieces.append(html.escape(text[pos:a]))
            pieces.append(f"<mark>{html.escape(text[a:b])}</mark>")
            pos = b
        pieces.append(html.escape(text[pos:]))
        line = "".join(pieces)
        out.append(f"<span class='moved'>{line}</span>" if li in moved else line)
    return "<pre>" + "\n".join(out) + "</pre>"


def html_page(report: dict) -> str:
    """A self-contained page: the summary, the spread histogram, the worst
    examples beside their most different variant (changed tokens marked)."""
    from rich.console import Console

    console = Console(record=True, width=110, file=_Null(), emoji=False)
    tables(report, console)
    summary = console.export_text()
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>invar audit</title><style>{_CSS}</style>"
        "</head><body><h1>invar audit</h1>",
        f"<pre>{html.escape(summary)}</pre>",
    ]
    if report["example"] is not None and report["example"]["histogram"] is not None:
        parts += [
            "<h2>Predictions of every variant</h2>",
            _svg_histogram(report["example"]["histogram"], "prediction", "predictions"),
        ]
    elif report["spread"] is not None:
        parts += [
            "<h2>Spread: relative range of the predictions per example</h2>",
            _svg_histogram(report["spread"]["histogram"], "relative range (max - min) / |original|", "examples"),
        ]
    if report["worst_examples"]:
        parts.append(
            "<h2>Largest differences</h2><p class='muted'>each example beside its variant whose "
            "prediction is farthest from the original's; respelled tokens <mark>marked</mark>, moved "
            "lines <span class='moved'>shaded</span></p>"
        )
        for w in report["worst_examples"]:
            md = w["most_different"]
            parts.append(
                f"<h3>{html.escape(w['id'])} <span class='muted'>({html.escape(w['location'])})</span></h3>"
                "<div class='pair'><div>original: prediction "
                + html.escape(_short(w["prediction"]))
                + (f", label {html.escape(_short(w['label']))}" if w["label"] is not None else "")
                + _marked(md["lines"])
                + "</div><div>variant "
                + str(md["variant"])
                + ": prediction "
                + html.escape(_short(md["prediction"]))
                + _marked(md["variant_lines"], md["changed"], md["moved"])
                + "</div></div>"
            )
    if report["failed"]:
        parts.append("<h2>Failed examples</h2><table><tr><th>where</th><th>stage</th><th>error</th></tr>")
        for f in report["failed"]:
            parts.append(
                f"<tr><td>{html.escape(f['location'])}</td><td>{f['stage']}</td><td>{html.escape(f['error'])}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


class _Null:
    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass


__all__ = [
    "tables",
    "headline",
    "read_together",
    "histogram_lines",
    "plot",
    "html_page",
    "words",
    "check_plot",
    "PLOT_INSTALL",
]
