"""Typed completion: the members of the value a read path reaches (`run.outputs["x"].`,
`inputs.issue.`, `branches[0].`, `…labels[0].`), each with its type and its schema's
`description`, in expressions and in `{{ }}` templates.

Contract: `typed_members(reads, reader, typing, dialect, …)` → `Candidate`s for
the member being typed (`typing`, from `analysis.ide.read_path`), or [] when the value's type
states no members: unknown (`AnyValue`), an open object offers its declared names only, never
an invented one. `null`/`undefined` options are set aside (what `?.` reads through). Expressions
offer an array's or a string's `length` too; templates never do (the engine's path walker reads
only an object's own keys and an array's numeric indices: packages/core/src/interpolation/
path.ts stepInto @ 839f2bd). A name a `.` cannot reach (`"a-b"` in an expression) is rewritten
to the bracket form from the `.` on; inside `["` every key is offered quoted.
`members(value_type, dialect)` is the list those candidates come from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analysis.ide.candidates import Candidate, CandidateKind
from analysis.ide.read_path import Dialect, Typing
from analysis.ide.typed_reads import TypedReads
from analysis.schema.value_types import (
    ArrayType,
    Literals,
    NullType,
    NumberType,
    ObjectType,
    StringType,
    UndefinedType,
    Union,
    ValueType,
    union_of,
)
from analysis.types.display import format_type

_DOT_NAME = {
    Dialect.EXPRESSION: re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z"),
    Dialect.TEMPLATE: re.compile(r"[A-Za-z0-9_-]+\Z"),
}
_LENGTH_DOC = "The number of items (of an array) or UTF-16 code units (of a string)."
_DETAIL_WIDTH = 72


@dataclass(frozen=True)
class Member:
    name: str
    type: ValueType
    required: bool
    description: str


def _present(value_type: ValueType) -> list[ValueType]:
    """The options of a value that is there: `null` and `undefined` set aside."""
    options = value_type.options if isinstance(value_type, Union) else (value_type,)
    return [option for option in options if not isinstance(option, NullType | UndefinedType)]


def members(value_type: ValueType, dialect: Dialect) -> list[Member]:
    found: dict[str, Member] = {}
    options = _present(value_type)
    for option in options:
        if isinstance(option, ObjectType):
            descriptions = dict(option.descriptions)
            for name, declared in option.properties:
                required = name in option.required
                seen = found.get(name)
                if seen is None:
                    found[name] = Member(name, declared, required, descriptions.get(name, ""))
                else:
                    found[name] = Member(name, union_of([seen.type, declared]),
                                         seen.required and required,
                                         seen.description or descriptions.get(name, ""))
        elif dialect is Dialect.EXPRESSION and (
                isinstance(option, ArrayType | StringType)
                or (isinstance(option, Literals) and all(isinstance(v, str)
                                                         for v in option.values))):
            found.setdefault("length", Member("length", NumberType(integer=True), True,
                                              _LENGTH_DOC))
    # a property only some object options declare may be absent
    objects = sum(isinstance(option, ObjectType) for option in options)
    for name, member in found.items():
        declaring = sum(isinstance(option, ObjectType) and any(
            key == name for key, _ in option.properties) for option in options)
        if name != "length" and declaring < objects:
            found[name] = Member(name, member.type, False, member.description)
    return list(found.values())


def member_detail(member: Member) -> str:
    optional = "" if member.required else " (optional)"
    return format_type(member.type, width=_DETAIL_WIDTH) + optional


def typed_members(reads: TypedReads, reader: str, typing: Typing, dialect: Dialect, *,
                  text: str, offset: int, prefix_start: int, quote: str) -> list[Candidate]:
    """`text` is the live text, `offset` the cursor's in it, `prefix_start` where the text
    `typing` was read from starts; `quote` is the quote a key rewritten to the bracket form
    needs there (`"`, `'`, or `\\"` inside a double-quoted YAML scalar)."""
    value_type = reads.read_type(reader, typing.read.root, typing.read.path).type
    typed = typing.typed
    span = (offset - len(typed), offset)
    access = prefix_start + typing.member_start
    if text.startswith("?.", access):
        access += 2  # `?.x` → `?.["x"]`
    found = []
    for member in members(value_type, dialect):
        detail, documentation = member_detail(member), member.description
        if typing.quote is not None:
            if not _quotable(member.name, typing.quote):
                continue
            closing = "" if text[offset:].startswith(typing.quote) else typing.quote + "]"
            found.append(Candidate(member.name, CandidateKind.MEMBER, detail, span,
                                   documentation, insert=member.name + closing))
        elif _DOT_NAME[dialect].match(member.name):
            found.append(Candidate(member.name, CandidateKind.MEMBER, detail, span,
                                   documentation))
        elif _quotable(member.name, quote.lstrip("\\")):
            found.append(Candidate(
                member.name, CandidateKind.MEMBER, detail, (access, offset), documentation,
                insert=f"[{quote}{member.name}{quote}]",
                filter=text[access:offset - len(typed)] + member.name))
    return found


def _quotable(name: str, quote: str) -> bool:
    """Whether `name` can be written between two `quote`s as it is: no escapes needed (the
    engine's template path honours none: path.ts readQuotedKey)."""
    return quote not in name and "\\" not in name and "\n" not in name
