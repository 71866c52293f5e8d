"""The hybrid pipeline: repair, validation, ranking, cautions, and degrading."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions
from accls.hybrid import BackendPool, HybridResult, suggest_hybrid
from accls.suggest import Dialect, Suggestion, SuggestOptions
from accls.suggest.backends import BackendKind, BackendSettings
from accls.validation import CompilerSettings
from support.openai_server import OpenAIServer

Need = Callable[[str], str]

ACC = SuggestOptions()
OMP = SuggestOptions(dialect=Dialect.OPENMP)
GCC = CompilerSettings(cc="gcc")

# `g` is only declared: the analysis cannot see its side effects and refuses.
CALL_SUM = dedent(
    """\
    double g(double v);
    double total(int n, const double *restrict a) {
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            sum += g(a[i]);
        return sum;
    }
    """
)
PLAIN_SUM = dedent(
    """\
    double total(int n, const double *restrict a) {
        double sum = 0.0;
        for (int i = 0; i < n; i++)
            sum += a[i];
        return sum;
    }
    """
)
SCAN = dedent(
    """\
    void scan(int n, double *restrict a) {
        for (int i = 1; i < n; i++)
            a[i] = a[i - 1] + a[i];
    }
    """
)
ALIAS = dedent(
    """\
    void saxpy(int n, float s, float *x, float *y) {
        for (int i = 0; i < n; i++)
            y[i] = s * x[i] + y[i];
    }
    """
)


_POOL = BackendPool()


@pytest.fixture(autouse=True)
def _fresh_backends() -> Iterator[None]:
    # A failed server is not re-dialled for a while: no test inherits that.
    _POOL.reset()
    yield
    _POOL.reset()


def _run(
    text: str,
    settings: BackendSettings,
    *,
    options: SuggestOptions = ACC,
    compiler: CompilerSettings | None = GCC,
) -> HybridResult:
    return suggest_hybrid(
        text,
        "t.c",
        options,
        AnalysisOptions(dialect=options.dialect.sentinel),
        settings,
        compiler,
        pool=_POOL,
    )


def _fake(*candidates: str) -> BackendSettings:
    return BackendSettings(kind=BackendKind.FAKE, candidates=candidates, n=4)


def _only(result: HybridResult) -> Suggestion:
    [found] = result.suggestions
    return found


def test_analysis_backend_is_the_analysis_alone(need: Need) -> None:
    need("gcc")
    found = _only(_run(PLAIN_SUM, BackendSettings()))
    assert found.source == "analysis"
    assert found.pragma is not None
    assert found.alternatives == ()


def test_racy_model_pragma_is_repaired_with_the_reduction(need: Need) -> None:
    need("gcc")
    result = _run(CALL_SUM, _fake("#pragma acc parallel loop"))
    found = _only(result)
    assert found.pragma is not None
    assert found.source == "model+repaired"
    assert found.pragma.clause("reduction") is not None
    assert found.pragma.render().startswith(
        "#pragma acc parallel loop reduction(+:sum)"
    )
    assert result.validation[found.loop.id].compiles is True
    assert result.validation[found.loop.id].race_free is True
    assert found.caution == "assumes `g()` has no side effects"
    assert any("add reduction(+:sum)" in r for r in found.reasons)


def test_model_pragma_over_a_proven_dependence_is_dropped(need: Need) -> None:
    need("gcc")
    result = _run(SCAN, _fake("#pragma acc parallel loop", "#pragma acc loop seq"))
    found = _only(result)
    assert found.pragma is None
    assert found.source == "analysis"
    assert len(found.alternatives) == 2
    assert all("proved a dependence" in a.why for a in found.alternatives)
    assert result.alternatives[found.loop.id] == found.alternatives


def test_refused_loop_gets_a_validated_model_pragma_with_a_caution(
    need: Need,
) -> None:
    need("gcc")
    found = _only(_run(ALIAS, _fake("#pragma acc parallel loop")))
    assert found.source == "model+repaired"  # data clauses added
    assert found.pragma is not None
    assert found.pragma.render() == (
        "#pragma acc parallel loop copy(y[0:n]) copyin(x[0:n])"
    )
    assert found.caution == "assumes `y` and `x` do not alias"


def test_refused_loop_without_a_compile_check_gets_no_model_pragma() -> None:
    found = _only(_run(ALIAS, _fake("#pragma acc parallel loop"), compiler=None))
    assert found.pragma is None
    [alt] = found.alternatives
    assert "not validated" in alt.why


def test_analysis_wins_ties_and_outranks_disagreeing_candidates(need: Need) -> None:
    need("gcc")
    found = _only(
        _run(
            PLAIN_SUM,
            _fake(
                "#pragma acc parallel loop",  # repaired into the analysis pragma
                "#pragma acc kernels loop",  # another construct: agrees less
            ),
        )
    )
    assert found.source == "analysis"
    whys = {a.text.split()[2]: a.why for a in found.alternatives}
    assert "the same pragma" in whys["parallel"]
    assert "agrees less" in whys["kernels"]


def test_unusable_completions_are_listed_with_why(need: Need) -> None:
    need("gcc")
    found = _only(
        _run(PLAIN_SUM, _fake("for (;;) {}", "#pragma omp parallel for", "#pragma acc"))
    )
    whys = sorted(a.why for a in found.alternatives)
    assert whys[0] == "not a pragma line"
    assert any("wrong model" in w for w in whys)


def test_compile_failure_drops_the_candidate(need: Need) -> None:
    need("gcc")
    found = _only(_run(ALIAS, _fake("#pragma acc parallel loop present(zz[0:n])")))
    assert found.pragma is None
    [alt] = found.alternatives
    assert "compile" in alt.why


REGION = dedent(
    """\
    void scale(int n, const double *restrict a, double *restrict b) {
    #pragma acc data copyin(a[0:n]) copyout(b[0:n])
        {
            for (int i = 0; i < n; i++)
                b[i] = 2.0 * a[i];
        }
    }
    """
)


def test_copyin_inside_a_data_region_is_repaired_into_present(need: Need) -> None:
    need("gcc")
    found = _only(_run(REGION, _fake("#pragma acc parallel loop copyin(a[0:n])")))
    expected = "#pragma acc parallel loop present(a[0:n], b[0:n])"
    assert found.pragma is not None
    assert found.pragma.render() == expected
    # The repaired model pragma is the analysis one: the analysis keeps the credit.
    assert found.source == "analysis"
    [alt] = found.alternatives
    assert (alt.text, alt.source) == (expected, "model+repaired")
    assert alt.why == "the same pragma as the analysis one"


def test_too_small_section_is_widened(need: Need) -> None:
    need("gcc")
    code = PLAIN_SUM.replace("sum += a[i];", "sum += a[i] * g(1.0);").replace(
        "double total", "double g(double);\ndouble total"
    )
    found = _only(
        _run(code, _fake("#pragma acc parallel loop reduction(+:sum) copyin(a[0:8])"))
    )
    assert found.source == "model+repaired"
    assert found.pragma is not None
    rendered = found.pragma.render()
    assert "a[0:8]" not in rendered
    assert "a[0:n]" in rendered


def test_a_clause_the_compiler_rejects_is_dropped(need: Need) -> None:
    need("gcc")
    found = _only(_run(ALIAS, _fake("#pragma acc parallel loop num_gangs(nope)")))
    assert found.pragma is not None
    assert found.source == "model+repaired"
    assert "num_gangs" not in found.pragma.render()
    assert any("compiler rejected" in r for r in found.reasons)


def _vllm(url: str, **kw: float) -> BackendSettings:
    return BackendSettings(
        kind=BackendKind.VLLM,
        url=url,
        n=2,
        temperature=0.7,
        max_tokens=24,
        connect_timeout=kw.get("connect", 1.0),
        read_timeout=kw.get("read", 5.0),
        retries=0,
    )


def test_vllm_racy_pragma_is_repaired(live: OpenAIServer, need: Need) -> None:
    need("gcc")
    live.knobs.script = ["#pragma acc parallel loop private(sum)"]
    found = _only(_run(CALL_SUM, _vllm(live.url)))
    assert found.source == "model+repaired"
    assert found.pragma is not None
    assert "reduction(+:sum)" in found.pragma.render()
    assert "private" not in found.pragma.render()


def test_vllm_racy_pragma_on_a_dependence_is_dropped(
    live: OpenAIServer, need: Need
) -> None:
    need("gcc")
    live.knobs.script = ["#pragma acc parallel loop independent"]
    found = _only(_run(SCAN, _vllm(live.url)))
    assert found.pragma is None
    assert [a.text for a in found.alternatives] == [
        "#pragma acc parallel loop independent"
    ]


def test_hanging_server_degrades_to_the_analysis_with_one_warning(
    live: OpenAIServer, need: Need
) -> None:
    need("gcc")
    live.knobs.hang = True
    started = time.monotonic()
    result = _run(PLAIN_SUM, _vllm(live.url, read=0.5))
    assert time.monotonic() - started < 10
    [warning] = result.warnings
    assert "did not answer within 0.5 s: using the analysis alone" in warning
    assert _only(result).source == "analysis"
    assert _only(result).pragma is not None


def test_garbage_degrades_to_the_analysis(live: OpenAIServer, need: Need) -> None:
    need("gcc")
    live.knobs.garbage = True
    result = _run(PLAIN_SUM, _vllm(live.url, connect=1.5))
    [warning] = result.warnings
    assert "malformed JSON" in warning
    assert _only(result).source == "analysis"


def test_unreachable_server_degrades_to_the_analysis() -> None:
    result = _run(PLAIN_SUM, _vllm("http://127.0.0.1:9/v1"), compiler=None)
    [warning] = result.warnings
    assert warning.startswith("model server unreachable at http://127.0.0.1:9/v1")
    assert warning.endswith("using the analysis alone")
    assert _only(result).pragma is not None


def test_real_model_candidates_are_validated_before_they_are_offered(
    live: OpenAIServer, need: Need
) -> None:
    need("gcc")
    result = _run(ALIAS, _vllm(live.url))
    found = _only(result)
    assert result.warnings == ()
    if found.pragma is not None:
        assert found.source in ("model", "model+repaired")
        assert result.validation[found.loop.id].compiles is True
        assert found.caution is not None
    else:
        assert len(found.alternatives) >= 1


@pytest.mark.parametrize(
    "c_fixture",
    ["dot_product.c", "prefix_sum.c", "histogram.c", "jacobi2d.c", "saxpy_alias.c"],
)
@pytest.mark.parametrize("options", [ACC, OMP], ids=["acc", "omp"])
def test_hybrid_is_never_worse_than_the_analysis(
    c_fixture: str,
    options: SuggestOptions,
    c_source: Callable[[str], str],
    need: Need,
) -> None:
    need("gcc")
    text = c_source(c_fixture)
    sentinel = options.dialect.sentinel
    bare = f"#pragma {sentinel} " + (
        "parallel loop" if sentinel == "acc" else "parallel for"
    )
    racy = bare + " private(i)"
    alone = _run(text, BackendSettings(), options=options)
    mixed = _run(text, _fake(bare, racy), options=options)

    def passes(result: HybridResult) -> set[int]:
        return {
            s.loop.id
            for s in result.suggestions
            if s.pragma is not None
            and (checked := result.validation.get(s.loop.id)) is not None
            and checked.compiles is True
            and checked.race_free is True
        }

    assert passes(alone) <= passes(mixed)
    for s in mixed.suggestions:
        if s.pragma is not None and s.existing is None:
            assert mixed.validation[s.loop.id].race_free is True
