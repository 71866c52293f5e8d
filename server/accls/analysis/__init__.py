"""Pure analysis: dependences, scalar classes and loop facts from a SourceFile."""

from accls.analysis.analyze import AnalysisOptions, FileAnalysis, analyze, analyze_text
from accls.analysis.findings import CATALOG, Finding, FindingKind
from accls.analysis.model import (
    Dependence,
    DepKind,
    Induction,
    InductionUse,
    LoopFacts,
    Obstacle,
    ObstacleCode,
    ScalarClass,
    ScalarFact,
)
from accls.analysis.restrict_params import overlapping_calls, restrict_parameters

__all__ = [
    "CATALOG",
    "AnalysisOptions",
    "DepKind",
    "Dependence",
    "FileAnalysis",
    "Finding",
    "FindingKind",
    "Induction",
    "InductionUse",
    "LoopFacts",
    "Obstacle",
    "ObstacleCode",
    "ScalarClass",
    "ScalarFact",
    "analyze",
    "analyze_text",
    "overlapping_calls",
    "restrict_parameters",
]
