"""The dependence graph of a loop nest (networkx stays inside this module)."""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from accls.analysis.model import Dependence

__all__ = ["DependenceGraph"]


class DependenceGraph:
    """References as nodes, dependences as edges keyed by the carrying loop."""

    def __init__(self, deps: Iterable[Dependence]) -> None:
        self._graph: nx.MultiDiGraph[tuple[int, int]] = nx.MultiDiGraph()
        for dep in deps:
            src = (dep.source.start_byte, dep.source.end_byte)
            snk = (dep.sink.start_byte, dep.sink.end_byte)
            self._graph.add_edge(src, snk, dep=dep, carrier=dep.carrier)

    def carried_by(self, loop_id: int) -> tuple[Dependence, ...]:
        """Dependences carried by the loop with this id, in source order."""
        found = [
            data["dep"]
            for _, _, data in self._graph.edges(data=True)
            if data["carrier"] == loop_id
        ]
        return tuple(
            sorted(found, key=lambda d: (d.source.start_byte, d.sink.start_byte))
        )

    def in_cycle(self, dep: Dependence) -> bool:
        """True if the dependence lies on a cycle (a recurrence)."""
        src = (dep.source.start_byte, dep.source.end_byte)
        snk = (dep.sink.start_byte, dep.sink.end_byte)
        return src == snk or nx.has_path(self._graph, snk, src)

    def __len__(self) -> int:
        return int(self._graph.number_of_edges())
