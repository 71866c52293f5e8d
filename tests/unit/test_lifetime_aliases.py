"""Device lifetimes never keep an array that a second name points into (`&a[1]`)."""

from __future__ import annotations

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes

ACC = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)

# `p` writes `A[1]` on the host between two runs of the kernel: kept on the
# device under the name `A`, that write would get no `update device`.
HOST_WRITE = """\
#include <stdio.h>
#define N 1000
double A[N];

int main(void)
{
    double *p = &A[1];
    for (int i = 0; i < N; i++)
        A[i] = i;
    for (int t = 0; t < 10; t++) {
        for (int i = 0; i < N; i++)
            A[i] = A[i] * 0.5;
        p[0] = p[0] + 1.0;
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += A[i];
    printf("%f\\n", s);
    return 0;
}
"""


def lifetimes(text: str) -> tuple[DeviceLifetime, ...]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="acc"))
    return propose_lifetimes(analysis, suggest_file(analysis, ACC), ACC)


def test_without_a_second_name_the_global_array_is_kept() -> None:
    text = HOST_WRITE.replace("double *p = &A[1];", "").replace("p[0]", "A[1]")
    [lifetime] = lifetimes(text)
    assert lifetime.names == ("A",)


def test_a_global_array_an_element_pointer_points_into_is_not_kept() -> None:
    assert all("A" not in lt.names for lt in lifetimes(HOST_WRITE))


def test_a_local_array_an_element_pointer_points_into_is_not_kept() -> None:
    text = HOST_WRITE.replace("double A[N];\n", "").replace(
        "    double *p", "    double A[N];\n    double *p"
    )
    assert "double A[N];\n    double *p = &A[1];" in text
    assert all("A" not in lt.names for lt in lifetimes(text))


def test_a_file_scope_pointer_to_an_element_keeps_the_global_off() -> None:
    text = HOST_WRITE.replace("double A[N];", "double A[N];\ndouble *p = &A[1];")
    text = text.replace("    double *p = &A[1];\n", "")
    assert all("A" not in lt.names for lt in lifetimes(text))


# Another file keeps `gp = &A[1]` (`A` has external linkage): this file sees only
# that it writes through `gp` between the kernel's runs.
FOREIGN = (
    HOST_WRITE.replace("double A[N];", "double A[N];\nextern double *gp;")
    .replace("    double *p = &A[1];\n", "")
    .replace("p[0] = p[0] + 1.0;", "gp[0] = gp[0] + 1.0;")
)


def test_a_global_pointer_another_file_may_set_keeps_the_global_off() -> None:
    assert "extern double *gp;" in FOREIGN
    assert "gp[0] = gp[0]" in FOREIGN
    assert all("A" not in lt.names for lt in lifetimes(FOREIGN))


def test_a_static_array_no_other_file_can_name_is_still_kept() -> None:
    text = FOREIGN.replace("double A[N];", "static double A[N];")
    [lifetime] = lifetimes(text)
    assert lifetime.names == ("A",)
