"""C++ types as far as operators need them: builtin, a library class, any other class.

In C++ an operator whose operand has a class type is a call of a function. The
front end tells the two apart from declarations: a type is builtin (arithmetic,
pointer, enum), a container of the library (`std::vector`, `std::array`,
`std::span`: `[]` is an element access), a stream, another class, or unknown
(`auto`, a template parameter, an undeclared name), which is read as a class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from tree_sitter import Node

from accls.frontend.exprs import node_text

if TYPE_CHECKING:
    from accls.frontend.cpp_methods import Accessor
    from accls.frontend.model import UserReduction

__all__ = [
    "OWNING_CONTAINERS",
    "STRING_CLASSES",
    "ClassInfo",
    "CxxScope",
    "CxxType",
    "TypeKind",
    "classify",
    "scalar_aliases",
    "static_method",
]


class TypeKind(StrEnum):
    """What a C++ type is to the operators applied to it."""

    BUILTIN = "builtin"  # arithmetic, pointer, enum: the language's own operators
    CONTAINER = "container"  # std::vector/array/span: `[]` reads or writes an element
    STREAM = "stream"  # an iostream: `<<` and `>>` are ordered I/O
    CLASS = "class"  # any other class: its operators are calls
    LAMBDA = "lambda"  # a closure: calling it runs its body
    UNKNOWN = "unknown"  # auto, a template parameter, undeclared: assume the worst


@dataclass(frozen=True, slots=True)
class CxxType:
    """A classified type: its kind, its class name and its element type's text."""

    kind: TypeKind
    name: str = ""  # the class: "std::vector", "Vec"
    element: str = ""  # the element type of a pointer, array or container
    pointer: bool = False  # a pointer or an array (a builtin)
    args: tuple[str, ...] = ()  # a class template instance's arguments, as written

    @property
    def builtin(self) -> bool:
        """True when the language's own operators apply."""
        return self.kind is TypeKind.BUILTIN


BUILTIN = CxxType(TypeKind.BUILTIN)
UNKNOWN = CxxType(TypeKind.UNKNOWN)

_PRIMITIVE = frozenset(
    {
        "void", "bool", "char", "short", "int", "long", "float", "double",
        "signed", "unsigned", "wchar_t", "char8_t", "char16_t", "char32_t",
        "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "__int128",
        "_Float16", "__float128", "float_t", "double_t",
    }
)  # fmt: skip
_FIXED = re.compile(r"u?int(8|16|32|64|max|ptr|_fast\d+|_least\d+)_t")
_DROPPED = frozenset(
    {
        "const", "volatile", "typename", "struct", "class", "union", "enum",
        "mutable", "static", "inline", "constexpr", "extern", "register",
        "thread_local", "__restrict", "__restrict__", "restrict",
    }
)  # fmt: skip
_CONTAINERS = frozenset({"vector", "array", "span", "valarray"})
OWNING_CONTAINERS = frozenset({"std::vector", "std::array", "std::valarray"})
"""Containers whose elements are their own storage (a span's are not)."""
STRING_CLASSES = frozenset({"std::string", "std::wstring"})
_STREAMS = frozenset(
    {
        "istream", "ostream", "iostream", "ifstream", "ofstream", "fstream",
        "stringstream", "istringstream", "ostringstream", "basic_istream",
        "basic_ostream", "basic_iostream", "ios", "streambuf", "FILE",
    }
)  # fmt: skip
STREAM_OBJECTS = frozenset({"cin", "cout", "cerr", "clog", "wcin", "wcout", "wcerr"})
"""The standard streams, with or without `std::`."""


@dataclass(slots=True)
class ClassInfo:
    """A class or struct the file defines: its data members and its methods."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)  # member -> type text
    methods: dict[str, str] = field(default_factory=dict)  # method -> return type
    # (method, number of arguments) -> what a call of it reaches: see cpp_methods
    accessors: dict[tuple[str, int], Accessor] = field(default_factory=dict)
    statics: set[str] = field(default_factory=set)  # static methods and members
    # Methods declared `virtual`, `override` or `final`, and the base classes
    # named: a call of such a method may run an override (see `virtual_method`).
    virtuals: set[str] = field(default_factory=set)
    bases: list[str] = field(default_factory=list)
    # Its constructors: how many it declares, whether one takes no argument, and
    # whether every one is defined here storing only its arguments in members.
    constructors: int = 0
    default_constructor: bool = False
    plain_constructors: bool = True
    # Static data members declared `const` or `constexpr` (a compile-time or
    # read-only value), and those some declaration of the name leaves writable.
    constants: set[str] = field(default_factory=set)
    varying: set[str] = field(default_factory=set)
    # Each method's declarations: the argument counts a call may pass, and the
    # return type, so a call's count picks its overload's type (see cpp_returns).
    # Some base is written as a template instance (`Base<T>`): see cpp_bases.
    template_bases: bool = False
    signatures: dict[str, list[tuple[range, str, str]]] = field(default_factory=dict)
    references: set[str] = field(default_factory=set)  # `T &m;` data members
    # A `union`, or a class holding an anonymous union: its members overlap.
    overlaid: bool = False
    holder: bool = False  # a class (no union itself) holding an anonymous union
    # A class template's parameters in order: a type parameter's name, "" for
    # any other; and whether the file specialises it (see cpp_class_templates).
    template_params: tuple[str, ...] = ()
    specialised: bool = False
    bitfields: set[str] = field(default_factory=set)  # `unsigned lo : 4;` members
    # Its conversion operators (`operator double`): a read of an object of the
    # class may call one where no call is written (see cpp_walker).
    conversions: set[str] = field(default_factory=set)


@dataclass(slots=True)
class CxxScope:
    """The file's classes, aliases, enums and template parameters, by plain name."""

    classes: dict[str, ClassInfo] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    enums: set[str] = field(default_factory=set)  # enum types and enumerators
    template_params: set[str] = field(default_factory=set)
    returns: dict[str, str] = field(default_factory=dict)  # function -> return type
    operators: set[str] = field(default_factory=set)  # free `operator+`... defined
    using_std: bool = False  # `using namespace std;` somewhere
    # Free function -> (parameter count, positions of its non-const `T &`
    # parameters) of each definition: see cpp_reference_args.
    reference_params: dict[str, set[tuple[int, frozenset[int]]]] = field(
        default_factory=dict
    )
    using_names: set[str] = field(default_factory=set)  # `using std::max;`: "max"
    # Every return type a name's definitions give, (with `*`/`&`, base type):
    # overloads may differ, and `returns` holds only the last (see cpp_returns).
    full_returns: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    reducers: dict[str, UserReduction] = field(default_factory=dict)  # cpp_reducers

    def merge(self, other: CxxScope) -> None:
        """Add what `other` (the headers' scope) declares and this one does not."""
        for name, info in other.classes.items():
            if name in self.classes:
                # Another class of that name: a static member it leaves writable
                # is no constant of this one's name either.
                self.classes[name].varying |= info.varying
                continue
            self.classes[name] = ClassInfo(
                info.name,
                dict(info.fields),
                dict(info.methods),
                dict(info.accessors),
                set(info.statics),
                set(info.virtuals),
                list(info.bases),
                info.constructors,
                info.default_constructor,
                info.plain_constructors,
                set(info.constants),
                set(info.varying),
                info.template_bases,
                {k: list(v) for k, v in info.signatures.items()},
                set(info.references),
                info.overlaid,
                info.holder,
                info.template_params,
                info.specialised,
                set(info.bitfields),
                set(info.conversions),
            )
        for name, text in other.aliases.items():
            self.aliases.setdefault(name, text)
        for name, text in other.returns.items():
            self.returns.setdefault(name, text)
        for name, texts in other.full_returns.items():
            self.full_returns.setdefault(name, set()).update(texts)
        self.enums |= other.enums
        self.template_params |= other.template_params
        self.operators |= other.operators
        self.using_std = self.using_std or other.using_std
        self.using_names |= other.using_names


def _plain(text: str) -> str:
    """The type text without qualifiers, references and extra spaces."""
    text = text.replace("&", " ").replace("*", " * ")
    words = [w for w in text.split() if w not in _DROPPED]
    return " ".join(words).replace(" *", "*").replace("* ", "*")


def template_args(text: str) -> list[str]:
    """The top-level arguments of the first `<...>` in `text`."""
    start = text.find("<")
    if start < 0 or not text.endswith(">"):
        return []
    args: list[str] = []
    depth, current = 0, ""
    for char in text[start + 1 : -1]:
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        if char == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += char
    args.append(current.strip())
    return args


def unqualified(text: str) -> str:
    """`vector` of `std::vector<double>`, `Vec` of `ns::Vec`."""
    head = text.split("<", 1)[0]
    return head.rsplit("::", 1)[-1].strip()


def classify(text: str, scope: CxxScope, depth: int = 0) -> CxxType:
    """The kind of the type written `text` (a declaration's base type and levels)."""
    plain = _plain(text).removeprefix("::")  # `::std::vector`, `::Vec`
    if depth > 16 or not plain or plain in ("auto", "decltype(auto)"):
        return UNKNOWN
    if plain.endswith("*") or plain.endswith("]"):
        element = plain[:-1] if plain.endswith("*") else plain.rsplit("[", 1)[0]
        return CxxType(TypeKind.BUILTIN, element=element.strip(), pointer=True)
    if plain.startswith("decltype"):
        return UNKNOWN
    name = unqualified(plain)
    qualified = plain.split("<", 1)[0].replace(" ", "")
    in_std = qualified.startswith("std::") or scope.using_std
    if "<" in plain:
        if name in _CONTAINERS and in_std:
            args = template_args(plain)
            element = _plain(args[0]) if args else ""
            if element == "bool" and name == "vector":
                return CxxType(TypeKind.CLASS, name="std::vector<bool>")
            return CxxType(TypeKind.CONTAINER, name=f"std::{name}", element=element)
        if name in _STREAMS and in_std:
            return CxxType(TypeKind.STREAM, name=f"std::{name}")
        return CxxType(TypeKind.CLASS, name=qualified, args=tuple(template_args(plain)))
    words = plain.replace("std::", "").split()
    if all(w in _PRIMITIVE or _FIXED.fullmatch(w) for w in words):
        return BUILTIN
    if name in scope.template_params:
        return UNKNOWN
    if name in scope.aliases and scope.aliases[name] != plain:
        return classify(scope.aliases[name], scope, depth + 1)
    if name in scope.enums:
        return BUILTIN
    if name in _STREAMS and (in_std or name == "FILE"):
        return CxxType(TypeKind.STREAM, name=f"std::{name}")
    if in_std and f"std::{name}" in STRING_CLASSES and name not in scope.classes:
        return CxxType(TypeKind.CLASS, name=f"std::{name}")
    return CxxType(TypeKind.CLASS, name=name)


def _declarator_levels(node: Node | None) -> str:
    """The `*` and `[]` a declarator adds to its base type."""
    out = ""
    while node is not None:
        if node.type == "pointer_declarator":
            out += "*"
        elif node.type == "array_declarator":
            out += "[]"
        elif node.type not in (
            "reference_declarator",
            "init_declarator",
            "parenthesized_declarator",
        ):
            break
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else (
            node.named_children[0] if node.type == "reference_declarator"
            and node.named_child_count else None
        )  # fmt: skip
    return out


def declared_name(node: Node | None) -> Node | None:
    """The identifier a declarator declares, through `*`, `&`, `[]` and `=`."""
    while node is not None and node.type not in (
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "operator_name",
        "destructor_name",
        "type_identifier",
    ):
        inner = node.child_by_field_name("declarator")
        if inner is None and node.type == "reference_declarator":
            inner = node.named_children[0] if node.named_child_count else None
        node = inner
    return node


def function_declarator(node: Node) -> tuple[Node | None, bool]:
    """A definition's function declarator, and whether it returns a reference."""
    decl = node.child_by_field_name("declarator")
    reference = False
    while decl is not None and decl.type != "function_declarator":
        reference = reference or decl.type == "reference_declarator"
        inner = decl.child_by_field_name("declarator")
        if inner is None and decl.type == "reference_declarator":
            inner = decl.named_children[0] if decl.named_child_count else None
        decl = inner
    return decl, reference


def declarator_type(base: Node | None, declarator: Node | None) -> str:
    """The type text of one declarator over its declaration's base type."""
    text = node_text(base) if base is not None else "int"
    return text + _declarator_levels(declarator)


def builtin_text(text: str) -> bool:
    """Whether a member's type needs no constructor: arithmetic or a pointer."""
    if "*" in text:
        return True
    words = [w for w in re.findall(r"[A-Za-z_]\w*", text) if w not in _DROPPED]
    return bool(words) and all(w in _PRIMITIVE or _FIXED.fullmatch(w) for w in words)


def scalar_aliases(scope: CxxScope) -> tuple[tuple[str, str, str], ...]:
    """`using real = float;` as a typedef row: the aliases of arithmetic types."""
    return tuple(
        (name, text, "")
        for name, text in sorted(scope.aliases.items())
        if builtin_text(text) and not set(text) & set("*&[<")
    )


def static_method(scope: CxxScope, cls: str, method: str) -> bool:
    """Whether `cls` declares `method` static: a call passes no object as `this`."""
    info = scope.classes.get(cls.rsplit("::", 1)[-1].split("<", 1)[0])
    return info is not None and method in info.statics and method in info.methods
