"""Screen one file: each loop's verdict per dialect, the findings, refused graphs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from accls.analysis import FileAnalysis, ProgramSummaries, analyze
from accls.analysis.cost import Estimate
from accls.analysis.nest_graph import statement_graph
from accls.files import InputError, looks_like_c, other_language, read_source
from accls.frontend import HeaderContext, Loop, SourceFile, parse_source
from accls.pipeline import analysis_options, check_text, suggest_text
from accls.project import BuildFlags, build_context
from accls.screening.model import (
    FileScreen,
    FindingRow,
    LoopRow,
    NestPicture,
    SkippedFile,
    Verdict,
)
from accls.screening.reasons import (
    OTHER,
    SMALL,
    decisive,
    reason_class,
    reason_counts,
)
from accls.screening.statements import Statements
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion
from accls.validation import CompilerSettings

__all__ = ["ScreenConfig", "screen_file", "screen_text"]

_LABEL = 60  # characters of a statement shown in a graph node


@dataclass(frozen=True, slots=True, kw_only=True)
class ScreenConfig:
    """How files are screened: the build's view, the assumptions, the limits."""

    build: BuildFlags | None = None  # None: macros from the file alone
    include_dirs: tuple[str, ...] = ()
    assume_no_alias: bool = False
    reassociate_float: bool = False
    validate: bool = False  # the compile check and race re-check per loop
    cc: str = "gcc"
    max_rows: int = 2000  # table rows kept per file
    max_pictures: int = 20  # dependence graphs drawn per file

    def settings(self, dialect: Dialect) -> Settings:
        """The settings of a suggestion run in one dialect."""
        return Settings(
            dialect=dialect,
            assume_no_alias=self.assume_no_alias,
            reassociate_float=self.reassociate_float,
            compiler=CompilerSettings(cc=self.cc),
            include_paths=self.include_dirs,
            preprocess=self.build is not None,
            validate=self.validate,
        )


def _depths(source: SourceFile) -> dict[int, int]:
    out: dict[int, int] = {}

    def visit(loop: Loop, depth: int) -> None:
        out[loop.id] = depth
        for child in loop.children:
            visit(child, depth + 1)

    for nest in source.nests:
        visit(nest, 0)
    return out


def _verdict(s: Suggestion, estimate: Estimate | None) -> Verdict:
    if s.pragma is not None:
        if estimate is not None and estimate.profitable is False:
            return Verdict.NOT_WORTH
        return Verdict.PARALLEL
    if s.existing is not None:
        return Verdict.EXISTING
    if s.collapsed_into is not None or s.inner_of is not None:
        return Verdict.INSIDE
    if s.facts.parallel and s.withdrawn is None and _too_small(s):
        return Verdict.NOT_WORTH
    return Verdict.SERIAL


def _too_small(s: Suggestion) -> bool:
    """True when the rules refused a safe loop for its few iterations alone.

    The rules say so in words (`only 5 iterations, ...: opening a parallel
    region costs more...`); the test of this verdict holds the wording.
    """
    first = s.reasons[0] if s.reasons else ""
    return first.startswith("only ") and "parallel region" in first


def _row(
    path: str,
    depth: int,
    by_dialect: tuple[tuple[Dialect, Suggestion], ...],
    estimates: dict[Dialect, Mapping[int, Estimate]],
) -> LoopRow:
    first = by_dialect[0][1]
    loop_id = first.loop.id
    costs = {d: estimates.get(d, {}).get(loop_id) for d, _ in by_dialect}
    verdicts = [_verdict(s, costs[d]) for d, s in by_dialect]
    verdict = min(verdicts, key=list(Verdict).index)
    pragmas = tuple(
        (d.value, s.pragma.render()) for d, s in by_dialect if s.pragma is not None
    )
    reason, cls = "", ""
    if verdict is Verdict.SERIAL:
        obstacle = decisive(first.facts)
        if obstacle is not None:
            reason, cls = obstacle.message, reason_class(obstacle.code)
        else:
            reason = first.withdrawn or (first.reasons[0] if first.reasons else "")
            cls = OTHER
    elif verdict is Verdict.NOT_WORTH:
        cost = next((c for c in costs.values() if c is not None and c.why), None)
        reason = cost.why if cost is not None else (first.reasons or ("",))[0]
        cls = SMALL
    elif verdict is Verdict.EXISTING:
        reason = f"keeps {first.existing}"
    loop = first.loop
    return LoopRow(
        file=path,
        function=loop.function,
        line=loop.line,
        depth=depth,
        verdict=verdict,
        reason=reason,
        reason_class=cls,
        pragmas=pragmas,
        work=_work(loop, costs),
    )


def _work(loop: Loop, costs: dict[Dialect, Estimate | None]) -> str | None:
    """The cost model's estimate (the CPU one first), else the trip count."""
    cost = costs.get(Dialect.OPENMP) or costs.get(Dialect.OPENACC)
    if cost is not None:
        return cost.summary
    return f"{loop.trip_count} iterations" if loop.trip_count else None


def _picture(
    path: str, nest: Loop, found: dict[int, Suggestion], text: str
) -> NestPicture | None:
    deps = [
        d
        for loop in nest.walk()
        if loop.id in found
        for d in found[loop.id].facts.dependences
    ]
    if not deps:
        return None
    statements = Statements(text, [loop.body for loop in nest.walk()])
    graph = statement_graph(deps, statements.line_of)
    labels = tuple(
        (line, statements.text_at(line, _LABEL))
        for layer in graph.layers
        for line in layer
    )
    return NestPicture(file=path, line=nest.line, graph=graph, labels=labels)


def screen_text(
    text: str,
    path: str,
    config: ScreenConfig,
    context: HeaderContext | None = None,
    program: ProgramSummaries | None = None,
) -> FileScreen:
    """The screening of one file's text.

    `program`: what the project's other files define (the workspace index).
    """
    source = parse_source(text, path, config.include_dirs, context=context)
    warnings: list[str] = []
    warning = looks_like_c(
        path,
        text,
        sum(e.end_byte - e.start_byte for e in source.errors),
        len(source.nests),
    )
    if warning is not None and not source.nests and source.errors:
        return FileScreen(
            file=path, rows=(), loops=0, skipped=SkippedFile(file=path, reason=warning)
        )
    if warning is not None:
        warnings.append(warning)
    runs: list[tuple[Dialect, dict[int, Suggestion]]] = []
    estimates: dict[Dialect, Mapping[int, Estimate]] = {}
    analyses: dict[str, FileAnalysis] = {}
    for dialect in (Dialect.OPENMP, Dialect.OPENACC):
        settings = config.settings(dialect)
        analysis = analyze(source, analysis_options(settings, program=program))
        assumed = config.assume_no_alias or config.reassociate_float
        if not assumed and program is None:
            analyses[dialect.sentinel] = analysis  # as the findings check makes it
        result = suggest_text(
            text,
            path,
            settings,
            context=context,
            source=source,
            analysis=analysis,
            every_loop=True,
            warnings=warnings.append,
            program=program,
        )
        runs.append((dialect, {s.loop.id: s for s in result.suggestions}))
        estimates[dialect] = result.estimates
    depths = _depths(source)
    first = runs[0][1]
    rows: list[LoopRow] = []
    classes: list[str] = []  # of every loop, the rows left out included
    refused: set[int] = set()
    for loop_id in first:
        both = tuple((d, found[loop_id]) for d, found in runs if loop_id in found)
        row = _row(path, depths.get(loop_id, 0), both, estimates)
        classes.append(row.reason_class)
        if len(rows) < config.max_rows:
            rows.append(row)
            if row.depth == 0 and row.verdict is Verdict.SERIAL:
                refused.add(loop_id)
    pictures: list[NestPicture] = []
    for nest in source.nests:
        if len(pictures) >= config.max_pictures:
            break
        if nest.id in refused:
            picture = _picture(path, nest, first, text)
            if picture is not None:
                pictures.append(picture)
    checked = check_text(
        text,
        path,
        include_dirs=config.include_dirs,
        context=context,
        analyses=analyses,
    )
    findings = tuple(
        FindingRow(
            file=path,
            line=f.span.line,
            code=f.code,
            severity=f.level.value,
            message=f.message,
        )
        for f in checked
    )
    return FileScreen(
        file=path,
        rows=tuple(rows),
        loops=len(first),
        reasons=reason_counts(classes),
        findings=findings,
        pictures=tuple(pictures),
        warnings=tuple(dict.fromkeys(warnings)),
    )


def screen_file(
    path: str, config: ScreenConfig, program: ProgramSummaries | None = None
) -> FileScreen:
    """The screening of one file; unreadable input is a skipped file with the reason.

    `program`: what the project's other files define (the workspace index).
    """
    try:
        language = other_language(path)
        if language is not None:
            raise InputError(f"{path}: {language} is not supported yet")
        text = read_source(path)
    except InputError as exc:
        return FileScreen(
            file=path, rows=(), loops=0, skipped=SkippedFile(file=path, reason=str(exc))
        )
    context: HeaderContext | None = None
    notes: list[str] = []
    if config.build is not None:
        context, notes = build_context(text, path, config.build)
    screened = screen_text(text, path, config, context, program)
    if not notes:
        return screened
    return replace(screened, warnings=(*notes, *screened.warnings))
