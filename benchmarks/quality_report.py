"""Render the quality benchmark's results as Markdown and as a console summary."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

MODE_TITLES = {
    "loop": "loop pragmas stripped (primary)",
    "all": "every acc/omp pragma stripped",
}
_HEADLINE = (
    ("pairs", "pairs", "n"),
    ("analysed", "analysed", "n"),
    ("unmatched", "unmatched", "n"),
    ("unmatched_enclosed", "of which enclosed", "n"),
    ("refused", "refused", "n"),
    ("collapsed", "collapsed", "n"),
    ("recall_parallel", "recall (parallel)", "%"),
    ("recall_seq", "recall (seq/serial)", "%"),
    ("directive_match", "directive", "%"),
    ("family_match", "family", "%"),
    ("jaccard_names", "J names", "f"),
    ("jaccard_items", "J items", "f"),
    ("exact", "exact", "%"),
    ("suspicious", "suspicious", "n"),
)


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "%":
        return f"{100 * value:.1f}%"
    if kind == "f":
        return f"{value:.3f}"
    return str(value)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    def cells(row: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"

    return [cells(header), "|" + "---|" * len(header), *map(cells, rows), ""]


def _metric_table(first: str, groups: dict[str, dict[str, Any]]) -> list[str]:
    rows = [
        [name, *(_fmt(m[key], kind) for key, _, kind in _HEADLINE)]
        for name, m in groups.items()
    ]
    return _table([first, *(title for _, title, _ in _HEADLINE)], rows)


def _compile_section(compiled: list[dict[str, Any]]) -> list[str]:
    if not compiled:
        return ["Compile check skipped (--no-compile or no compiler).", ""]
    good = [c for c in compiled if not c["baseline_error"]]
    annotated = [c for c in good if not c.get("annotate_error")]
    ok = [c for c in annotated if not c["annotated_error"]]
    broken = [c for c in annotated if c["annotated_error"]]
    rate = _fmt(len(ok) / len(good) if good else None, "%")
    lines = [
        f"- (file, model) runs: {len(compiled)}; stripped file compiles: {len(good)}; "
        f"excluded because the stripped original does not compile: "
        f"{len(compiled) - len(good)}",
        f"- `accls annotate` failed: {len(good) - len(annotated)}",
        f"- **compile rate of annotated files: {rate}** ({len(ok)} of {len(good)}); "
        f"pragmas inserted: {sum(c.get('inserted', 0) for c in annotated)}",
        "",
    ]
    if broken:
        lines += ["**Files our pragmas break (bugs):**", ""]
        lines += _table(
            ["file", "model", "first error"],
            [[c["file"], c["model"], f"`{c['annotated_error']}`"] for c in broken],
        )
    failed = [c for c in good if c.get("annotate_error")]
    if failed:
        lines += ["`accls annotate` failures:", ""]
        lines += _table(
            ["file", "model", "stderr tail"],
            [[c["file"], c["model"], c["annotate_error"][-160:]] for c in failed],
        )
    excluded = [c for c in compiled if c["baseline_error"]]
    if excluded:
        lines += ["<details><summary>Baseline failures (excluded)</summary>", ""]
        lines += [
            f"- {c['file']} ({c['model']}): `{c['baseline_error']}`" for c in excluded
        ]
        lines += ["", "</details>", ""]
    return lines


def _harm_section(mode: dict[str, Any]) -> list[str]:
    sus = mode["suspicious"]
    lines = [
        f"Parallel pragma where the expert wrote `loop seq`/`serial`: **{len(sus)}**",
        "",
    ]
    if sus:
        lines += _table(
            ["pair", "expert", "ours"],
            [[s["id"], f"`{s['expert']}`", f"`{s['ours']}`"] for s in sus],
        )
    extras = mode["extras"]
    inside = [e for e in extras if e["inside_expert_nest"]]
    lines += [
        f"Our pragmas on loops no expert pragma sat on: {len(extras)} "
        f"({len(inside)} inside an expert's loop nest, which the expert left to run "
        f"sequentially per thread; {len(extras) - len(inside)} elsewhere).",
        "",
    ]
    if inside:
        lines += _table(
            ["file", "line", "ours"],
            [[e["file"], str(e["line"]), f"`{e['pragma']}`"] for e in inside[:10]],
        )
    return lines


def _patterns_section(patterns: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    titles = {
        "directive": "Directive confusions (expert -> ours)",
        "missing_clauses": "Clauses the expert used and we did not",
        "extra_clauses": "Clauses we used and the expert did not",
        "refusal_reasons": "First reason when we refused an expert's parallel loop",
    }
    for key, title in titles.items():
        lines += [f"**{title}**", ""]
        lines += _table(
            ["pattern", "count"], [[f"`{k}`", str(n)] for k, n in patterns[key]]
        )
    return lines


def _directive_table(mode: dict[str, Any]) -> list[str]:
    ours: dict[str, Counter[str]] = {}
    for pair in mode["pairs"]:
        mine = pair["our_directive"] or f"({pair['status']})"
        ours.setdefault(pair["expert_directive"], Counter())[mine] += 1
    rows = []
    for name, m in mode["by_expert_directive"].items():
        top = ", ".join(f"{d} x{n}" for d, n in ours[name].most_common(2))
        rows.append(
            [
                name,
                str(m["pairs"]),
                _fmt(
                    (m["suggested"] + m["collapsed"]) / m["analysed"]
                    if m["analysed"]
                    else None,
                    "%",
                ),
                top,
                _fmt(m["directive_match"], "%"),
                _fmt(m["jaccard_items"], "f"),
                _fmt(m["exact"], "%"),
            ]
        )
    header = [
        "expert directive",
        "pairs",
        "recall",
        "ours (most common)",
        "directive",
        "J items",
        "exact",
    ]
    return _table(header, rows)


def _sample_section(mode: dict[str, Any], size: int, seed: int) -> list[str]:
    candidates = [
        p
        for p in mode["pairs"]
        if p["status"] in ("suggested", "refused") and not p["exact"]
    ]
    picked = sorted(
        random.Random(seed).sample(candidates, min(size, len(candidates))),
        key=lambda p: p["id"],
    )
    lines: list[str] = []
    for p in picked:
        ours = (
            f"`{p['ours']}`" if p["ours"] else "refused: " + "; ".join(p["reasons"][:2])
        )
        lines += [
            f"- **{p['id']}** — loop `{p['loop_head'].strip()}`",
            f"  - expert: `{p['expert']}`",
            f"  - ours: {ours}",
        ]
    return [*lines, ""]


def render_mode(mode: dict[str, Any], sample: int, seed: int) -> list[str]:
    """The Markdown section for one strip mode."""
    o = mode["overall"]
    secs = mode["seconds"]
    lines = [
        f"## Mode: {MODE_TITLES[mode['mode']]}",
        "",
        f"{mode['files']} files, {o['pairs']} pairs ({o['no_source']} without a "
        f"source file, {o['failed']} on files where accls failed). Suggest took "
        f"{secs['suggest']:.1f} s, the whole mode {secs['total']:.1f} s.",
    ]
    if mode["mode"] == "loop":
        lines.append(
            f"acc/omp pragmas left directly above a loop (not in the pair "
            f"list, e.g. duplicates): {mode['kept_loop_pragmas']}."
        )
    lines += ["", "### Headline", ""]
    lines += _metric_table("group", {"all": o, **mode["by_model"]})
    lines += ["### Per repository", "", *_metric_table("repository", mode["by_repo"])]
    lines += ["### Per expert directive", "", *_directive_table(mode)]
    lines += ["### Compile check", "", *_compile_section(mode["compile"])]
    lines += ["### Harm", "", *_harm_section(mode)]
    lines += ["### Mismatch patterns", "", *_patterns_section(mode["patterns"])]
    unmatched = [p for p in mode["pairs"] if p["status"] == "unmatched"]
    lines += [
        f"### Unmatched pairs (no suggestion object on the loop): {len(unmatched)}",
        "",
        "Enclosed: the loop lies inside a loop we reported (we answered for the "
        "nest, e.g. a pragma on the outer loop or a collapse); not enclosed: accls "
        "reported nothing around it (a front-end miss: parse error, macro, ...).",
        "",
    ]
    lines += [
        f"- {p['id']}"
        + (
            f" (enclosed by our loop at line {p['enclosed_by']})"
            if p["enclosed_by"]
            else " (not enclosed)"
        )
        for p in unmatched
    ] + [""]
    if mode["failures"]:
        lines += ["### accls failures", ""]
        lines += _table(
            ["file", "model", "error"],
            [[f["file"], f["model"], f["error"][-200:]] for f in mode["failures"]],
        )
    lines += [
        f"### Sample of {sample} mismatches",
        "",
        *_sample_section(mode, sample, seed),
    ]
    return lines


def render_markdown(report: dict[str, Any], sample: int, seed: int) -> str:
    """The whole quality.md."""
    lines = [
        "# accls quality benchmark",
        "",
        f"Generated {report['generated']} at commit {report['commit']} from "
        f"`{report['data_dir']}`. Metrics are defined in benchmarks/README.md.",
        "",
    ]
    for mode in report["modes"].values():
        lines += render_mode(mode, sample, seed)
    return "\n".join(lines) + "\n"


def render_summary(report: dict[str, Any]) -> str:
    """A few lines for the console."""
    lines = []
    for name, mode in report["modes"].items():
        lines.append(f"[{MODE_TITLES[name]}]")
        for group, m in {"all": mode["overall"], **mode["by_model"]}.items():
            lines.append(
                f"  {group:8} pairs {m['pairs']:4}  unmatched {m['unmatched']:3}  "
                f"recall {_fmt(m['recall_parallel'], '%'):>6}  "
                f"directive {_fmt(m['directive_match'], '%'):>6} "
                f"(family {_fmt(m['family_match'], '%')})  "
                f"J {_fmt(m['jaccard_names'], 'f')}/{_fmt(m['jaccard_items'], 'f')}  "
                f"exact {_fmt(m['exact'], '%')}  suspicious {m['suspicious']}"
            )
        compiled = mode["compile"]
        good = [c for c in compiled if not c["baseline_error"]]
        annotated = [c for c in good if not c.get("annotate_error")]
        broken = [c for c in annotated if c["annotated_error"]]
        if compiled:
            lines.append(
                f"  compile: {len(annotated) - len(broken)} of {len(good)} ok "
                f"({len(compiled) - len(good)} baseline failures excluded); "
                f"{len(broken)} broken by our pragmas"
            )
    return "\n".join(lines)
