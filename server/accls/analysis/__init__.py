"""Pure analysis: dependences, scalar classes and loop facts from a SourceFile."""

from accls.analysis.analyze import (
    AnalysisOptions,
    FileAnalysis,
    analyze,
    analyze_dialects,
    analyze_text,
)
from accls.analysis.array_params import argument_overlaps
from accls.analysis.field_facts import FieldFact
from accls.analysis.field_points_to import file_field_facts
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
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.program import ArgumentOverlap, Definition, ProgramSummaries
from accls.analysis.restrict_params import overlapping_calls, restrict_parameters
from accls.analysis.summaries import Summary, summarize, unsummarised_reason

__all__ = [
    "CATALOG",
    "PURE_FUNCTIONS",
    "AnalysisOptions",
    "ArgumentOverlap",
    "Definition",
    "DepKind",
    "Dependence",
    "FieldFact",
    "FileAnalysis",
    "Finding",
    "FindingKind",
    "Induction",
    "InductionUse",
    "LoopFacts",
    "Obstacle",
    "ObstacleCode",
    "ProgramSummaries",
    "ScalarClass",
    "ScalarFact",
    "Summary",
    "analyze",
    "analyze_dialects",
    "analyze_text",
    "argument_overlaps",
    "file_field_facts",
    "overlapping_calls",
    "restrict_parameters",
    "summarize",
    "unsummarised_reason",
]
