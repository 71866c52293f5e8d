"""The dependence graph of a loop nest (networkx stays inside this module)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from accls.analysis.model import Dependence

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["DependenceGraph"]

_Node = tuple[int, int]


def _node(dep: Dependence, end: str) -> _Node:
    span = dep.source if end == "source" else dep.sink
    return (span.start_byte, span.end_byte)


class DependenceGraph:
    """References as nodes, dependences as edges keyed by the carrying loop.

    The networkx graph is built on the first query that needs it, and only for
    nests with a loop-carried dependence: most nests have none, and importing
    networkx costs more than analysing a small file.
    """

    def __init__(self, deps: Iterable[Dependence]) -> None:
        self._deps = tuple(deps)
        self._carriers = {dep.carrier for dep in self._deps if dep.carrier is not None}
        self._graph: nx.MultiDiGraph[_Node] | None = None

    def _built(self) -> nx.MultiDiGraph[_Node]:
        if self._graph is None:
            import networkx as nx

            graph: nx.MultiDiGraph[_Node] = nx.MultiDiGraph()
            for dep in self._deps:
                graph.add_edge(
                    _node(dep, "source"),
                    _node(dep, "sink"),
                    dep=dep,
                    carrier=dep.carrier,
                )
            self._graph = graph
        return self._graph

    def carried_by(self, loop_id: int) -> tuple[Dependence, ...]:
        """Dependences carried by the loop with this id, in source order."""
        if loop_id not in self._carriers:
            return ()
        found = [
            data["dep"]
            for _, _, data in self._built().edges(data=True)
            if data["carrier"] == loop_id
        ]
        return tuple(
            sorted(found, key=lambda d: (d.source.start_byte, d.sink.start_byte))
        )

    def __len__(self) -> int:
        return len(self._deps)
