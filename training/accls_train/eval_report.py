"""The evaluate report: metrics.json, a Markdown table and a grouped bar chart."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accls_train.metrics import Error, Summary

__all__ = ["COLUMNS", "dump", "report_json", "write_chart", "write_markdown"]

COLUMNS: dict[str, str] = {
    "coverage": "coverage",
    "compile": "compile pass",
    "directive": "directive match",
    "jaccard": "clause Jaccard",
    "levenshtein": "Levenshtein sim.",
    "exact": "exact match",
    "race_free": "race-free",
}


def _summary_json(summary: Summary, by_model: Mapping[str, Summary]) -> dict[str, Any]:
    return {
        **summary.row(),
        "predicted": summary.predicted,
        "errors": dict(summary.errors),
        "by_model": {m: s.row() for m, s in by_model.items()},
    }


def report_json(
    head: Mapping[str, Any],
    summaries: Mapping[str, Summary],
    by_model: Mapping[str, Mapping[str, Summary]],
) -> dict[str, Any]:
    """The metrics as one JSON object: {..., backends: {name: {metric: value}}}."""
    return {
        **head,
        "backends": {
            name: _summary_json(s, by_model.get(name, {}))
            for name, s in summaries.items()
        },
    }


def _cell(value: object) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _table(rows: Mapping[str, Mapping[str, object]], columns: Mapping[str, str]) -> str:
    lines = [
        "| backend | n | " + " | ".join(columns.values()) + " |",
        "|---|---:|" + "---:|" * len(columns),
    ]
    for name, row in rows.items():
        cells = [_cell(row.get(key)) for key in columns]
        lines.append(f"| {name} | {row.get('n')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_markdown(
    path: Path, report: Mapping[str, Any], chart: str | None, notes: str
) -> None:
    """Write the human-readable report next to metrics.json."""
    backends: Mapping[str, Mapping[str, Any]] = report["backends"]
    taxonomy = [
        "| backend | exact | " + " | ".join(str(e) for e in Error) + " |",
        "|---|---:|" + "---:|" * len(Error),
    ]
    for name, row in backends.items():
        exact = round(float(row["exact"]) * int(row["n"]))
        counts = [str(row["errors"].get(str(e), 0)) for e in Error]
        taxonomy.append(f"| {name} | {exact} | " + " | ".join(counts) + " |")
    per_model: dict[str, dict[str, Any]] = {}
    for name, row in backends.items():
        for model, numbers in row["by_model"].items():
            per_model[f"{name} / {model}"] = numbers
    parts = [
        "# accls evaluation",
        "",
        f"Data: `{report['data']}`, split `{report['split']}`: {report['n']} pairs "
        f"({report['models']}) from {len(report['repos'])} repositories "
        f"({', '.join(report['repos'])}).",
        "",
        "## Metrics",
        "",
        _table(backends, COLUMNS),
        "",
        "`reference` scores the experts' own pragmas: its compile and race-free "
        "rates are the ceiling of what the units allow.",
        "",
        "## Error taxonomy (pairs)",
        "",
        "\n".join(taxonomy),
        "",
        "## By programming model",
        "",
        _table(per_model, COLUMNS),
        "",
    ]
    if chart:
        parts += [f"![metrics by backend]({chart})", ""]
    parts += ["## Definitions", "", notes.strip(), ""]
    path.write_text("\n".join(parts), encoding="utf-8")


def write_chart(path: Path, report: Mapping[str, Any]) -> bool:
    """Grouped bars, a group per metric, a bar per backend; False if no matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    backends: Mapping[str, Mapping[str, Any]] = report["backends"]
    keys = list(COLUMNS)
    width = 0.8 / max(1, len(backends))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for index, (name, row) in enumerate(backends.items()):
        values = [float(row.get(k) or 0.0) for k in keys]
        xs = [k + index * width - 0.4 + width / 2 for k in range(len(keys))]
        bars = ax.bar(xs, values, width, label=name)
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=6, padding=1)
    ax.set_xticks(range(len(keys)), [COLUMNS[k] for k in keys], fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("rate / mean")
    ax.set_title(f"accls evaluation: {report['n']} pairs, split {report['split']}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def dump(path: Path, report: Mapping[str, Any]) -> None:
    """Write the JSON report."""
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
