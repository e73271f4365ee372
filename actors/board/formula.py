"""The formula language of formula columns: numbers, {column id} references, + - * /, unary signs and
parentheses, parsed by hand into postfix and evaluated on a stack; nothing is ever handed to eval."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_TOKEN = re.compile(r"\s*(?:(?P<number>\d+(?:\.\d+)?|\.\d+)|\{(?P<ref>[A-Za-z0-9_-]{1,64})\}|(?P<op>[-+*/()]))")
# Parentheses and unary signs nest at most this deep: enough for any real formula, far from recursion limits.
_MAX_NESTING = 32

Step = float | str | tuple[str, str]


class FormulaError(ValueError):
    """An expression that is not a formula; the message says where."""


def _tokens(expression: str) -> list[tuple[str, str, int]]:
    tokens = []
    position = 0
    while expression[position:].strip():
        match = _TOKEN.match(expression, position)
        if match is None:
            at = len(expression) - len(expression[position:].lstrip())
            raise FormulaError(f"unexpected {expression[at]!r} at position {at + 1}")
        kind = match.lastgroup or "op"
        tokens.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent: expression = term {(+|-) term}; term = factor {(*|/) factor};
    factor = (+|-) factor | number | {ref} | ( expression )."""

    def __init__(self, expression: str) -> None:
        self.tokens = _tokens(expression)
        self.index = 0
        self.out: list[Step] = []

    def _peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def parse(self) -> list[Step]:
        self._expression(0)
        extra = self._peek()
        if extra is not None:
            raise FormulaError(f"unexpected {extra[1]!r} at position {extra[2] + 1}")
        return self.out

    def _binary(self, operators: str, operand: Callable[[int], None], depth: int) -> None:
        operand(depth)
        while (token := self._peek()) is not None and token[0] == "op" and token[1] in operators:
            self.index += 1
            operand(depth)
            self.out.append(token[1])

    def _expression(self, depth: int) -> None:
        self._binary("+-", self._term, depth)

    def _term(self, depth: int) -> None:
        self._binary("*/", self._factor, depth)

    def _factor(self, depth: int) -> None:
        if depth > _MAX_NESTING:
            raise FormulaError(f"nested more than {_MAX_NESTING} deep")
        token = self._peek()
        if token is None:
            raise FormulaError("ends where a number, {column} or ( was expected")
        self.index += 1
        kind, text, position = token
        if kind == "number":
            self.out.append(float(text))
        elif kind == "ref":
            self.out.append(("ref", text))
        elif text in "+-":
            self._factor(depth + 1)
            if text == "-":
                self.out.append("neg")
        elif text == "(":
            self._expression(depth + 1)
            closing = self._peek()
            if closing is None or closing[1] != ")":
                raise FormulaError(f"the ( at position {position + 1} is not closed")
            self.index += 1
        else:
            raise FormulaError(f"unexpected {text!r} at position {position + 1}")


@lru_cache(maxsize=1024)
def compile_formula(expression: str) -> tuple[Step, ...]:
    if not expression.strip():
        return ()
    return tuple(_Parser(expression).parse())


def formula_references(expression: str) -> frozenset[str]:
    """The column ids a (valid) formula reads, for callers that check they exist."""
    return frozenset(step[1] for step in compile_formula(expression) if isinstance(step, tuple))


def apply_operator(operator: str, left: float, right: float) -> float | None:
    if operator == "+":
        return left + right
    if operator == "-":
        return left - right
    if operator == "*":
        return left * right
    return None if right == 0 else left / right
