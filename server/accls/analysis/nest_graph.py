"""A nest's dependences as a statement graph with a deterministic layered layout."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from accls.analysis.model import Dependence
from accls.frontend import Span

__all__ = ["GraphEdge", "StatementGraph", "statement_graph"]


@dataclass(frozen=True, slots=True)
class GraphEdge:
    """Dependences from one statement to another, of one kind on one array."""

    source: int  # the line of the earlier statement
    sink: int  # the line of the later one
    array: str
    kind: str  # flow, anti or output
    distance: str  # per common loop: the distance, `?` unknown, `*` varies
    count: int = 1  # the distinct dependences it stands for


@dataclass(frozen=True, slots=True)
class StatementGraph:
    """Statements (by line) placed in layers, and the dependence edges between them."""

    layers: tuple[tuple[int, ...], ...]  # lines per layer, each layer in line order
    edges: tuple[GraphEdge, ...]
    dropped: int = 0  # statements left out over the limit
    dropped_edges: int = 0  # edges left out over the limit


def _merged(distances: list[tuple[int | None, ...]]) -> str:
    """One label for several distance vectors: a position that varies is `*`."""
    if not distances or not distances[0]:
        return "?"
    width = min(len(d) for d in distances)
    out: list[str] = []
    for k in range(width):
        values = {d[k] for d in distances}
        only = next(iter(values))
        out.append("*" if len(values) > 1 else "?" if only is None else str(only))
    return "(" + ", ".join(out) + ")"


def statement_graph(
    deps: Iterable[Dependence],
    statement: Callable[[Span], int] | None = None,
    limit: int = 40,
    edge_limit: int = 60,
) -> StatementGraph:
    """The graph of `deps` with statements as nodes, laid out in layers.

    `statement` names the statement of a reference by its first line (default:
    the reference's own line). Dependences between the same two statements of
    one kind on one array are one edge; their distances merge, a position that
    differs between them shown as `*`. Strongly connected statements (a cycle
    of dependences) share a layer; the layers follow the condensation's
    topological order, lines breaking ties, so the same dependences always give
    the same picture. At most `limit` statements are kept, the earliest first,
    and `edge_limit` edges, those between the earliest statements first.
    """
    import networkx as nx

    where = statement or (lambda span: span.line)
    groups: dict[tuple[int, int, str, str], list[tuple[int | None, ...]]] = {}
    for dep in deps:
        key = (where(dep.source), where(dep.sink), dep.array, dep.kind.value)
        groups.setdefault(key, []).append(dep.distance)
    graph: nx.MultiDiGraph[int] = nx.MultiDiGraph()
    for key in sorted(groups):
        found = sorted(set(groups[key]), key=lambda d: tuple(map(str, d)))
        edge = GraphEdge(key[0], key[1], key[2], key[3], _merged(found), len(found))
        graph.add_edge(edge.source, edge.sink, edge=edge)
    lines = sorted(graph.nodes)
    kept = set(lines[:limit])
    graph = graph.subgraph(kept).copy()
    condensed = nx.condensation(graph)
    members: dict[int, int] = condensed.graph["mapping"]
    first = {c: min(n for n, m in members.items() if m == c) for c in condensed}
    layer_of: dict[int, int] = {}
    for component in nx.lexicographical_topological_sort(condensed, key=first.get):
        preds = list(condensed.predecessors(component))
        layer_of[component] = 1 + max((layer_of[p] for p in preds), default=-1)
    depth = 1 + max(layer_of.values(), default=-1)
    layers: list[list[int]] = [[] for _ in range(depth)]
    for line in sorted(kept):
        layers[layer_of[members[line]]].append(line)
    edges = sorted(
        (data["edge"] for _, _, data in graph.edges(data=True)),
        key=lambda e: (e.source, e.sink, e.array, e.kind),
    )
    return StatementGraph(
        layers=tuple(tuple(layer) for layer in layers),
        edges=tuple(edges[:edge_limit]),
        dropped=len(lines) - len(kept),
        dropped_edges=max(0, len(edges) - edge_limit),
    )
