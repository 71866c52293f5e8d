"""The C++ front end: operators on class types are calls, containers, references."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.files import looks_like_c, other_language
from accls.frontend import SourceFile, is_cpp, library_function, parse_source
from accls.frontend.library import Effect


def _cpp(text: str, name: str = "k.cpp") -> SourceFile:
    return parse_source(dedent(text), name)


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    """Line of each loop -> (parallel, its obstacles' messages joined)."""
    facts = analyze(_cpp(text)).facts
    return {
        f.loop.line: (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in facts
    }


def test_reading_a_stream_in_a_loop_is_ordered_io_not_a_shift() -> None:
    # The held-out loop of issue 16: parsed as C, `>>` was a shift and the loop
    # got `parallel for`.
    verdicts = _verdicts(
        """\
        #include <fstream>
        void load(std::ifstream &in, double *a, int n) {
          int i;
          for (i = 0; i < n; i++) {
            in >> a[i];
          }
        }
        """
    )
    parallel, why = verdicts[4]
    assert not parallel
    assert "std::stream::operator>>" in why
    assert "I/O in order" in why


def test_the_same_loop_in_c_is_still_read_as_c() -> None:
    source = parse_source(
        "void f(int *a, int n) { for (int i = 0; i < n; i++) a[i] >>= 1; }\n", "k.c"
    )
    assert not any(
        c.name.startswith("std::") for nest in source.nests for c in nest.calls
    )


def test_an_operator_on_a_value_of_unknown_type_is_an_unknown_call() -> None:
    verdicts = _verdicts(
        """\
        double *make(int n);
        void f(double *a, int n) {
          auto s = make(n);
          for (int i = 0; i < n; i++) a[i] = a[i] * s[0];
        }
        """
    )
    parallel, why = verdicts[4]
    assert not parallel
    assert "not known here" in why


def test_an_operator_of_an_unknown_class_is_refused_with_its_name() -> None:
    verdicts = _verdicts(
        """\
        #include "matrix.h"
        void f(Matrix &m, double *a, int n) {
          for (int i = 0; i < n; i++) a[i] = m[i];
        }
        """
    )
    parallel, why = verdicts[3]
    assert not parallel
    assert "Matrix::operator[]" in why


def test_vector_elements_are_accesses_and_size_is_a_bound() -> None:
    verdicts = _verdicts(
        """\
        #include <vector>
        #include <cmath>
        void f(std::vector<double> &v) {
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sqrt(v[i]);
        }
        """
    )
    assert verdicts[4] == (True, "")


def test_vector_of_bool_is_not_an_element_access() -> None:
    # vector<bool> packs bits: writing two elements from two threads races.
    verdicts = _verdicts(
        """\
        #include <vector>
        void f(std::vector<bool> &v) {
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = true;
        }
        """
    )
    assert not verdicts[3][0]


def test_push_back_writes_the_container() -> None:
    verdicts = _verdicts(
        """\
        #include <vector>
        void f(std::vector<int> &v, int n) {
          for (int i = 0; i < n; i++) v.push_back(i);
        }
        """
    )
    parallel, why = verdicts[3]
    assert not parallel
    assert "std::vector::push_back" in why


def test_a_scalar_reference_parameter_is_written_through() -> None:
    source = _cpp(
        """\
        void total(double &s, const double *a, int n) {
          for (int i = 0; i < n; i++) s = s + a[i];
        }
        """
    )
    fn = source.function("total")
    assert fn is not None
    assert "s" in fn.writes_nonlocal


def test_a_reference_to_an_element_is_that_element() -> None:
    verdicts = _verdicts(
        """\
        void f(double *a, int n) {
          for (int i = 1; i < n; i++) {
            double &x = a[i];
            const double &y = a[i - 1];
            x = y + 1.0;
          }
        }
        """
    )
    parallel, why = verdicts[2]
    assert not parallel
    assert "a[i - 1]" in why


def test_a_lambda_is_read_where_it_is_called() -> None:
    verdicts = _verdicts(
        """\
        void f(double *a, int n) {
          auto next = [&](int i) { return a[i + 1]; };
          for (int i = 0; i < n - 1; i++) a[i] = next(i);
        }
        """
    )
    parallel, why = verdicts[3]
    assert not parallel
    assert "a" in why


def test_a_mutable_lambda_is_an_unknown_call() -> None:
    verdicts = _verdicts(
        """\
        void f(double *a, int n) {
          int k = 0;
          auto count = [k]() mutable { return k++; };
          for (int i = 0; i < n; i++) a[i] = count();
        }
        """
    )
    assert not verdicts[4][0]


def test_a_lambda_sharing_a_written_variable_by_reference_is_unknown() -> None:
    # `tot` would be a reduction copy, `t` a private one, but the closures made
    # before the loop still name the shared variables.
    verdicts = _verdicts(
        """\
        void f(double *__restrict a, double *__restrict b, int n) {
          double tot = 0, t = 0;
          auto add = [&](double x) { tot += x; };
          auto get = [&]() { return t * 2; };
          for (int i = 0; i < n; i++) add(a[i] * i);
          for (int i = 0; i < n; i++) { t = a[i]; b[i] = get(); }
          auto ok = [&](int i) { return a[i] * 2; };
          for (int i = 0; i < n; i++) b[i] = ok(i);
        }
        """
    )
    assert not verdicts[5][0]
    assert "lambda" in verdicts[5][1]
    assert not verdicts[6][0]
    assert verdicts[8][0], verdicts[8][1]


def test_a_reference_to_a_variable_is_not_that_variable_in_a_clause() -> None:
    # `reduction(+:s)` would privatize `s`, but `r` still names the shared one.
    verdicts = _verdicts(
        """\
        double f(const double *v, int n) {
          double s = 0;
          double &r = s;
          for (int i = 0; i < n; i++) r += v[i];
          return s;
        }
        """
    )
    assert not verdicts[4][0]


def test_methods_and_members_have_qualified_names() -> None:
    source = _cpp(
        """\
        #include <vector>
        namespace g {
        class F {
         public:
          void scale(double s) {
            for (int i = 0; i < n; i++) d[i] *= s;
          }
          std::vector<double> d;
          int n;
        };
        }
        """
    )
    fn = source.function("F::scale")
    assert fn is not None
    assert "this" in fn.writes_nonlocal  # methods are not summarised yet
    refs = {r.name for nest in source.nests for r in nest.refs}
    assert {"this->d", "this->n"} <= refs


def test_a_range_for_over_rows_of_a_vector_of_vectors_is_parallel() -> None:
    text = """\
        #include <vector>
        void f(std::vector<std::vector<double>> &m, int n) {
          for (std::vector<double> &row : m) {
            for (int j = 0; j < n; j++) row[j] += 1.0;
          }
        }
        """
    source = _cpp(text)
    assert [loop.line for nest in source.nests for loop in nest.walk()] == [3, 4]
    verdicts = _verdicts(text)
    assert verdicts[3][0]  # each row is an object of its own: `m[k][j]`
    assert verdicts[4][0]


@pytest.mark.parametrize(
    "text",
    [
        # A C++20 module unit.
        "export module k;\nimport std;\n"
        "export void f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = 0; }\n",
        # Template metaprogramming.
        "template <int N> struct F { static const int v = N * F<N - 1>::v; };\n"
        "template <> struct F<0> { static const int v = 1; };\n"
        "template <typename T> void g(T *a, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] = a[i] + T(F<3>::v);\n}\n",
        # Macros that generate classes.
        "#define FIELD(N, T) struct N { T v; T get() const { return v; } };\n"
        "FIELD(P, double)\n"
        "void h(P *p, double *a, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] = p[i].get();\n}\n",
    ],
    ids=["module", "templates", "macro-classes"],
)
def test_bad_input_parses_and_refuses_what_it_cannot_read(text: str) -> None:
    source = parse_source(text, "bad.cpp")
    facts = analyze(source).facts
    assert facts
    for fact in facts:
        calls = {c.name for c in fact.loop.calls}
        if any("::" in c for c in calls):
            assert not fact.parallel, calls


def test_c_with_a_cpp_name_is_told() -> None:
    text = (
        "void f(int n, double *restrict a) { for (int i = 0; i < n; i++) a[i] = 0; }\n"
    )
    warning = looks_like_c("k.cpp", text, 0, 1)
    assert warning is not None
    assert "rename it .c" in warning
    assert (
        looks_like_c("k.cpp", "#include <vector>\nstd::vector<int> v;\n", 0, 0) is None
    )


def test_c_keywords_of_cpp_as_names_or_an_uncast_malloc_are_c() -> None:
    for text in (
        "#include <vector>\nint f(void) { int class = 3; return class; }\n",
        "#include <vector>\nvoid f(int n) { double *new = 0; (void)new; }\n",
        "#include <vector>\nvoid f(int n) { double *a = malloc(n * 8); }\n",
    ):
        warning = looks_like_c("k.cpp", text, 0, 1)
        assert warning is not None, text
        assert "rename it .c" in warning
    for text in (
        "#include <vector>\nvoid f(int n) { void *a = malloc(n); }\n",
        "#include <vector>\nvoid f(int n) { std::size_t new_size = n; }\n",
        "#include <vector>\nvoid f(int n) { double *a = (double *)malloc(n); }\n",
    ):
        assert looks_like_c("k.cpp", text, 0, 1) is None, text


def test_which_files_are_cpp() -> None:
    assert is_cpp("a/b.cpp")
    assert is_cpp("x.hpp")
    assert is_cpp("k.cc")
    assert not is_cpp("k.c")
    assert not is_cpp("k.h")
    assert is_cpp("k.h", "cpp")
    assert not is_cpp("k.cpp", "c")
    assert other_language("k.cpp") is None
    assert other_language("k.cu") == "CUDA"


def test_the_cpp_table_is_read_with_the_c_table() -> None:
    sqrt = library_function("std::sqrt")
    assert sqrt is not None
    assert sqrt.effect is Effect.PURE
    io = library_function("std::stream::operator>>")
    assert io is not None
    assert io.effect is Effect.IO
    grow = library_function("std::vector::push_back")
    assert grow is not None
    assert grow.writes == (0,)
    assert library_function("sqrt") is not None


def test_a_module_unit_is_told_as_one() -> None:
    text = "export module k;\nimport std;\nexport void f(double *a, int n);\n"
    for name in ("k.cpp", "k.cppm", "k.ixx"):
        assert is_cpp(name)
        warning = looks_like_c(name, text, 0, 0)
        assert warning is not None
        assert "C++20 module unit" in warning


def test_a_const_method_is_a_sign_of_cpp() -> None:
    text = "struct P { double v; double get() const { return v; } };\n"
    assert looks_like_c("p.cpp", text, 0, 0) is None


def test_msvc_spelled_restrict_is_restrict_in_cpp() -> None:
    source = _cpp(
        "void f(double *__restrict a, double *__restrict__ b, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] = b[i];\n}\n"
    )
    fn = source.function("f")
    assert fn is not None
    assert {p.name: p.restrict for p in fn.params} == {"a": True, "b": True, "n": False}
