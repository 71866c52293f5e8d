"""Inline SVG pictures: the chart of refusal reasons and a nest's dependence graph."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from accls.analysis.nest_graph import GraphEdge
from accls.screening.model import NestPicture

__all__ = ["graph_svg", "reasons_svg"]

_CHAR = 7.2  # width of one character of the 12px monospace font
_KIND_COLOURS = {"flow": "#c0392b", "anti": "#2471a3", "output": "#7d3c98"}


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def reasons_svg(counts: Sequence[tuple[str, int]]) -> str:
    """A horizontal bar chart of refusals per reason class."""
    if not counts:
        return '<p class="none">No loop was refused.</p>'
    label_w = max(len(name) for name, _ in counts) * _CHAR + 12
    bar_w = 420.0
    top = max(n for _, n in counts)
    row = 26
    height = row * len(counts) + 8
    width = label_w + bar_w + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'width="{_num(width)}" height="{height}" '
        f'viewBox="0 0 {_num(width)} {height}">',
        "<title>Refused loops per reason</title>",
    ]
    for i, (name, n) in enumerate(counts):
        y = 4 + i * row
        w = max(2.0, bar_w * n / top)
        parts.append(
            f'<text x="{_num(label_w - 8)}" y="{y + 16}" text-anchor="end">'
            f"{escape(name)}</text>"
            f'<rect x="{_num(label_w)}" y="{y + 3}" width="{_num(w)}" height="18" '
            f'fill="#d35400"><title>{escape(name)}: {n}</title></rect>'
            f'<text x="{_num(label_w + w + 6)}" y="{y + 16}">{n}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _edge_label(edge: GraphEdge) -> str:
    times = f", {edge.count} pairs" if edge.count > 1 else ""
    to = "itself" if edge.source == edge.sink else f"line {edge.sink}"
    return f"{edge.kind} {edge.array} {edge.distance}{times} → {to}"


def _marker(kind: str, colour: str) -> str:
    return (
        f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" '
        f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    )


def graph_svg(picture: NestPicture) -> str:
    """The nest's statements top to bottom, indented by layer, dependences as arcs.

    Layers come from the graph's layout (a cycle shares one layer). An edge is
    an arc on the right of the boxes, a statement's dependence on itself a
    small loop; the labels (kind, array, distances, target) stand in a column
    on the right, beside the statement the dependence starts from.
    """
    labels = dict(picture.labels)
    order = [line for layer in picture.graph.layers for line in layer]
    layer_of = {
        line: depth
        for depth, layer in enumerate(picture.graph.layers)
        for line in layer
    }
    texts = {line: f"{line}: {labels.get(line, '')}" for line in order}
    box_w = max((len(t) * _CHAR + 12 for t in texts.values()), default=80.0)
    box_h, gap, step = 22, 12, 14
    outgoing: dict[int, list[GraphEdge]] = {line: [] for line in order}
    for edge in picture.graph.edges:
        outgoing[edge.source].append(edge)
    tops: dict[int, float] = {}
    y = 8.0
    for line in order:
        tops[line] = y
        y += max(box_h, step * len(outgoing[line]) + 4) + gap
    height = y
    right = 8 + 22 * (len(picture.graph.layers) - 1) + box_w
    index = {line: i for i, line in enumerate(order)}
    span = max(
        (abs(index[e.source] - index[e.sink]) for e in picture.graph.edges), default=0
    )
    label_x = right + 40 + 18 * span
    label_w = max(
        (len(_edge_label(e)) * _CHAR for e in picture.graph.edges), default=0.0
    )
    width = label_x + label_w + 16
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" '
        f'width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}">',
        f"<title>Dependences of the nest at line {picture.line}</title>",
        "<defs>",
        *(_marker(kind, colour) for kind, colour in _KIND_COLOURS.items()),
        "</defs>",
    ]
    for line in order:
        x = 8 + layer_of[line] * 22
        top = tops[line]
        parts.append(
            f'<rect x="{x}" y="{_num(top)}" width="{_num(right - x)}" '
            f'height="{box_h}" rx="4" fill="#fdf2e9" stroke="#935116"/>'
            f'<text class="mono" x="{x + 6}" y="{_num(top + 15)}">'
            f"{escape(texts[line])}</text>"
        )
    for line in order:
        for k, edge in enumerate(outgoing[line]):
            colour = _KIND_COLOURS.get(edge.kind, "#555")
            y1 = tops[edge.source] + box_h / 2
            y2 = tops[edge.sink] + box_h / 2
            if edge.source == edge.sink:
                out = right + 16 + 5 * k
                d = (
                    f"M{_num(right)},{_num(y1 - 4)} C{_num(out)},{_num(y1 - 14)} "
                    f"{_num(out)},{_num(y1 + 14)} {_num(right)},{_num(y1 + 4)}"
                )
            else:
                out = (
                    right + 24 + 18 * abs(index[edge.source] - index[edge.sink]) + 4 * k
                )
                d = (
                    f"M{_num(right)},{_num(y1)} C{_num(out)},{_num(y1)} "
                    f"{_num(out)},{_num(y2)} {_num(right)},{_num(y2)}"
                )
            label = escape(_edge_label(edge))
            parts.append(
                f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="1.5" '
                f'marker-end="url(#arrow-{escape(edge.kind)})">'
                f"<title>{label}</title></path>"
                f'<text class="edge" x="{_num(label_x)}" '
                f'y="{_num(tops[line] + 11 + step * k)}" fill="{colour}">{label}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
