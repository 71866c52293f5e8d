"""`std::string` in loops: its length is a read of the string, nothing more."""

from __future__ import annotations

from textwrap import dedent

from support.verdicts import verdicts

HEAD = """\
    #include <cstddef>
    #include <string>
    #include <vector>
    """


def _verdicts(text: str) -> dict[int, tuple[bool, str]]:
    return verdicts(dedent(HEAD) + dedent(text))


def test_the_lengths_of_distinct_strings_are_read_apart() -> None:
    found = _verdicts(
        """\
        std::size_t f(const std::vector<std::string> &names) {
          std::vector<std::size_t> len(names.size());
          for (std::size_t i = 0; i < names.size(); ++i) len[i] = names[i].size();
          for (std::size_t i = 0; i < names.size(); ++i)
            len[i] = names[i].length() + (names[i].empty() ? 1 : 0);
          return len[0];
        }
        """
    )
    assert found[6][0], found[6][1]
    assert found[7][0], found[7][1]


def test_a_string_changed_in_the_loop_is_a_call() -> None:
    found = _verdicts(
        """\
        std::size_t f(std::vector<std::string> &names, std::size_t *len) {
          for (std::size_t i = 0; i + 1 < names.size(); ++i) {
            names[i + 1].append("x");
            len[i] = names[i].size();
          }
          std::string all;
          for (std::size_t i = 0; i < names.size(); ++i) {
            all += names[i];
            len[i] = all.size();
          }
          return len[0];
        }
        """
    )
    assert not found[5][0]
    assert not found[10][0]


def test_a_class_of_the_programs_named_string_is_its_own() -> None:
    found = _verdicts(
        """\
        using namespace std;
        struct string {
          int n;
          int size() { return ++n; }
        };
        void f(string *s, int *len, int m) {
          for (int i = 0; i < m; ++i) len[i] = s[0].size();
        }
        """
    )
    assert not found[10][0]
