"""A lone C file with `main`: its calls decide an external kernel's overlaps.

Without a project (no `--project`, no compile database, no index), a file that
defines `main` is the whole program, so a non-`static` kernel's calls are all
in it, as a `static` one's are. A project that shows another file calls the
kernel decides instead.
"""

from __future__ import annotations

from pathlib import Path

from accls.analysis import AnalysisOptions, LoopFacts, ProgramSummaries, analyze_text
from accls.project import ProjectIndex

KERNEL = """
#include <stdlib.h>
void relax(double *dst, const double *src, int n) {
  for (int i = 0; i < n; i++) {
    dst[i] = 0.5 * src[i] + 1.0;
  }
}
"""

DISTINCT = """
int main(void) {
  int n = 1000;
  double *a = malloc(sizeof(double) * n);
  double *b = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) a[i] = i;
  relax(b, a, n);
  relax(a, b, n);
  free(a);
  free(b);
  return 0;
}
"""


def _relax(
    text: str, path: str | None = "prog.c", program: ProgramSummaries | None = None
) -> LoopFacts:
    options = AnalysisOptions(program=program)
    found = analyze_text(text, path, options=options).facts
    (fact,) = [f for f in found if f.loop.function == "relax"]
    return fact


def _alias(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles if o.code == "alias"]


def test_a_lone_program_proves_an_external_kernel_apart() -> None:
    fact = _relax(KERNEL + DISTINCT)
    assert fact.parallel, _alias(fact)
    assert any("every call of `relax()`" in a for a in fact.assumptions)


def _main_calling(body: str) -> str:
    return f"""
int main(void) {{
  int n = 1000;
  double *buf = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) buf[i] = i;
  {body}
  free(buf);
  return 0;
}}
"""


def test_one_buffer_passed_twice_stays_refused() -> None:
    fact = _relax(KERNEL + _main_calling("relax(buf, buf, n);"))
    assert not fact.parallel
    assert _alias(fact)


def test_overlapping_halves_of_one_buffer_stay_refused() -> None:
    fact = _relax(KERNEL + _main_calling("relax(buf + n / 2, buf, n / 2);"))
    assert not fact.parallel
    assert _alias(fact)


def test_a_pointer_copied_and_passed_under_both_names_stays_refused() -> None:
    body = "double *copy = buf;\n  relax(copy, buf, n);"
    fact = _relax(KERNEL + _main_calling(body))
    assert not fact.parallel
    assert _alias(fact)


def test_a_kernel_whose_address_is_taken_stays_refused() -> None:
    body = "void (*f)(double *, const double *, int) = relax;\n  f(buf, buf, n);"
    text = KERNEL + DISTINCT.replace(
        "int main", "void other(double *buf, int n) {\n  " + body + "\n}\nint main"
    )
    fact = _relax(text)
    assert not fact.parallel


def test_a_file_without_main_stays_refused() -> None:
    text = KERNEL + DISTINCT.replace("int main(void)", "int driver(void)")
    assert not _relax(text).parallel


def test_a_buffer_with_no_file_name_stays_refused() -> None:
    assert not _relax(KERNEL + DISTINCT, path=None).parallel


def _project(tmp_path: Path, other: str) -> LoopFacts:
    root = tmp_path / "proj"
    root.mkdir()
    main = root / "main.c"
    main.write_text(KERNEL + DISTINCT)
    (root / "other.c").write_text(other)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    return _relax(main.read_text(), str(main), program=index.program_for(str(main)))


def test_a_project_file_calling_the_kernel_with_one_buffer_keeps_the_refusal(
    tmp_path: Path,
) -> None:
    other = """
void relax(double *dst, const double *src, int n);
void step(double *v, int n) { relax(v + 1, v, n - 1); }
"""
    fact = _project(tmp_path, other)
    assert not fact.parallel
    assert _alias(fact)


def test_a_project_whose_other_file_never_calls_the_kernel_proves_it(
    tmp_path: Path,
) -> None:
    fact = _project(tmp_path, "int twice(int x) { return 2 * x; }\n")
    assert fact.parallel, _alias(fact)


def test_a_file_with_a_header_of_its_own_is_one_file_of_many() -> None:
    # Another file may declare `relax` itself and pass one buffer twice.
    fact = _relax('#include "grid.h"\n' + KERNEL + DISTINCT)
    assert not fact.parallel
    assert _alias(fact)


def test_system_headers_alone_leave_a_lone_program() -> None:
    fact = _relax("#include <math.h>\n#include <stdio.h>\n" + KERNEL + DISTINCT)
    assert fact.parallel, _alias(fact)


def test_a_cpp_file_with_main_is_not_taken_as_the_whole_program() -> None:
    # C++ (other linkage, its own front end) keeps its field stores unknown:
    # `weigh` reads the public `Real_t *` member that may point into `m_x`.
    path = Path(__file__).parents[1] / "fixtures" / "cpp" / "typed_members.cpp"
    found = analyze_text(path.read_text(encoding="utf-8"), str(path)).facts
    (weigh,) = [f for f in found if f.loop.function == "weigh"]
    assert not weigh.parallel
