"""The report as one self-contained HTML page: inline CSS and SVG, nothing fetched."""

from __future__ import annotations

import re
from collections import Counter
from html import escape

from accls import __version__
from accls.screening.model import FORMAT, FileScreen, LoopRow, Report, Verdict
from accls.screening.svg import graph_svg, reasons_svg

__all__ = ["GENERATOR", "render_html"]

GENERATOR = f'<meta name="generator" content="{FORMAT}">'
"""The line that marks a file as an accls report, so a new one may replace it."""

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .5em}
.note{background:#fef9e7;border-left:4px solid #f1c40f;padding:.4em .8em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f4f6f7;cursor:pointer}
td.num{text-align:right}code,.mono{font-family:ui-monospace,monospace;font-size:12px}
tr.parallel td.v{color:#1e8449;font-weight:600}tr.serial td.v{color:#b03a2e}
tr.more td{font-style:italic;color:#666}.none{color:#666}
svg text{font:12px system-ui,sans-serif}svg text.mono{font-family:monospace}
svg text.edge{font-size:11px}figure{margin:1em 0}
figcaption{font-weight:600;margin-bottom:.3em}
.summary span{display:inline-block;margin-right:1.5em}
"""

_JS = """
document.querySelectorAll('table.sortable th').forEach(function(th,col){
 th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0];
  var rows=Array.prototype.slice.call(b.rows).filter(function(r){
   return !r.classList.contains('more');});
  var up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';
  rows.sort(function(a,c){var x=a.cells[col].textContent,y=c.cells[col].textContent;
   var nx=parseFloat(x),ny=parseFloat(y);
   var r=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return up?r:-r;});
  rows.forEach(function(r){b.appendChild(r);});});});
var f=document.getElementById('filter');if(f){f.addEventListener('input',function(){
 var q=f.value.toLowerCase();document.querySelectorAll('#loops tbody tr')
 .forEach(function(r){r.hidden=q&&r.textContent.toLowerCase().indexOf(q)<0;});});}
"""

_DIALECTS = ("openmp", "openacc")


_TICKS = re.compile(r"`([^`<>]+)`")


def _prose(text: str) -> str:
    """A reason or message, escaped, with its `code` spans set in code."""
    return _TICKS.sub(r"<code>\1</code>", escape(text))


def _cell(text: str | int | None, cls: str = "") -> str:
    value = "" if text is None else escape(str(text))
    return f'<td class="{cls}">{value}</td>' if cls else f"<td>{value}</td>"


def _row(row: LoopRow, work: bool) -> str:
    pragmas = dict(row.pragmas)
    cls = {Verdict.PARALLEL: "parallel", Verdict.SERIAL: "serial"}.get(row.verdict, "")
    pad = f' style="padding-left:{0.5 + 1.2 * row.depth:.1f}em"' if row.depth else ""
    cells = [
        _cell(row.file),
        _cell(row.function),
        _cell(row.line, "num"),
        f'<td class="v"{pad}>{escape(row.verdict.value)}</td>',
        f"<td>{_prose(row.reason)}</td>",
        *(
            f"<td><code>{escape(pragmas[d])}</code></td>"
            if d in pragmas
            else "<td></td>"
            for d in _DIALECTS
        ),
    ]
    if work:
        cells.append(_cell(row.work))
    return f'<tr class="{cls}">' + "".join(cells) + "</tr>"


def _more(screen: FileScreen, columns: int) -> str:
    hidden = screen.loops - len(screen.rows)
    return (
        f'<tr class="more"><td colspan="{columns}">{hidden} more loop(s) in '
        f"{escape(screen.file)} not shown (the table keeps {len(screen.rows)} "
        "per file)</td></tr>"
    )


def _loops_table(report: Report) -> str:
    rows = report.rows
    if not rows:
        return '<p class="none">No loops found.</p>'
    work = any(r.work for r in rows)
    heads = ["File", "Function", "Line", "Verdict", "Decisive reason", "OpenMP"]
    heads.append("OpenACC")
    if work:
        heads.append("Estimated work")
    body: list[str] = []
    for screen in report.files:
        body.extend(_row(r, work) for r in screen.rows)
        if screen.capped:
            body.append(_more(screen, len(heads)))
    return (
        '<p><label>Filter: <input id="filter" type="search" '
        'placeholder="file, reason, pragma…"></label></p>'
        '<table id="loops" class="sortable"><thead><tr>'
        + "".join(f"<th>{h}</th>" for h in heads)
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


def _findings(report: Report) -> str:
    items = [x for f in report.files for x in f.findings]
    if not items:
        return '<p class="none">No findings on the pragmas already in the code.</p>'
    body = "".join(
        "<tr>"
        + _cell(x.file)
        + _cell(x.line, "num")
        + _cell(x.severity)
        + _cell(x.code)
        + f"<td>{_prose(x.message)}</td>"
        + "</tr>"
        for x in items
    )
    return (
        '<table id="findings" class="sortable"><thead><tr><th>File</th><th>Line</th>'
        "<th>Severity</th><th>Code</th><th>Message</th></tr></thead><tbody>"
        + body
        + "</tbody></table>"
    )


def _graphs(report: Report) -> str:
    pictures = [p for f in report.files for p in f.pictures]
    if not pictures:
        return '<p class="none">No refused nest has a dependence to draw.</p>'
    out: list[str] = []
    for p in pictures:
        left = [
            f"{n} more {what} not drawn"
            for n, what in (
                (p.graph.dropped, "statement(s)"),
                (p.graph.dropped_edges, "dependence edge(s)"),
            )
            if n
        ]
        dropped = f" ({'; '.join(left)})" if left else ""
        out.append(
            f"<figure><figcaption>{escape(p.file)}, nest at line {p.line}"
            f"{dropped}</figcaption>{graph_svg(p)}</figure>"
        )
    return "".join(out)


def _skipped(report: Report) -> str:
    items = report.skipped
    warned = [(f.file, w) for f in report.files for w in f.warnings]
    out: list[str] = []
    if items:
        out.append("<h2>Files not screened</h2><ul>")
        out.extend(f"<li>{escape(s.reason)}</li>" for s in items)
        out.append("</ul>")
    if warned:
        out.append("<h2>Warnings</h2><ul>")
        out.extend(f"<li>{escape(p)}: {escape(w)}</li>" for p, w in warned)
        out.append("</ul>")
    return "".join(out)


def _summary(report: Report) -> str:
    screened = [f for f in report.files if f.skipped is None]
    verdicts = Counter(r.verdict for r in report.rows)
    loops = sum(f.loops for f in screened)
    parts = [
        f"<span>{len(screened)} file(s) screened</span>",
        f"<span>{len(report.skipped)} skipped</span>",
        f"<span>{loops} loop(s)</span>",
        *(f"<span>{verdicts[v]} {escape(v.value)}</span>" for v in Verdict),
        f"<span>{report.seconds:.1f} s</span>",
    ]
    return '<p class="summary">' + "".join(parts) + "</p>"


def render_html(report: Report) -> str:
    """The whole page; every text from the sources is escaped."""
    how = (
        "Suggestions were compiled and race-checked (--validate)."
        if report.validated
        else "Screening by the analysis alone: suggestions were not compiled or "
        "race-checked. Apply them through the editor, `accls annotate`, or "
        "re-run with --validate."
    )
    inputs = ", ".join(escape(p) for p in report.inputs)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
            GENERATOR,
            "\n<title>accls screening report</title><style>",
            _CSS,
            "</style></head><body>",
            f"<h1>accls screening report</h1><p>accls {escape(__version__)}: "
            f"{inputs}</p>",
            f'<p class="note">{escape(how)}</p>',
            _summary(report),
            "<h2>What keeps loops serial</h2>",
            reasons_svg(report.reason_counts),
            "<h2>Loops</h2>",
            _loops_table(report),
            "<h2>Findings on existing pragmas</h2>",
            _findings(report),
            "<h2>Dependence graphs of refused nests</h2>",
            "<p>Nodes are statements (by line); arcs are dependences carried "
            "between iterations, labelled with kind, array and distances "
            "(<code>?</code> where not constant).</p>",
            _graphs(report),
            _skipped(report),
            "<script>",
            _JS,
            "</script></body></html>\n",
        ]
    )
