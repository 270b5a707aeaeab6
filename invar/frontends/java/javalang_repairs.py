"""Repairs to ``javalang`` (Java 8) that the javalang path reads with.

Its tokenizer keeps ``\\uXXXX`` escapes as written (so columns stay true);
its parser keeps parenthesized expressions whole (:class:`Parenthesized`),
reads ``(a.b) + 1`` as a sum, keeps initializer blocks as nodes with
their position (:class:`Initializer`), and records where the identifiers of
every type stand (``_types``).
"""

from __future__ import annotations

import javalang
from javalang import tree as jt


class Parenthesized(jt.Primary):
    """``( expression )`` followed by selectors or operators: ``(this.n)++``,
    ``(a[i]).x``. javalang's own parser drops what is written on either side
    of the parentheses and, worse, overwrites the inner expression's
    selectors and operators (``(this.n++)`` becomes a bare ``this``)."""

    attrs = ("expression",)


class Initializer(jt.Declaration):
    """An initializer block of a class body (javalang returns a bare list
    without a position, and cannot tell ``static { … }`` from ``{ … }``)."""

    attrs = ("statements", "static")


class Tokenizer(javalang.tokenizer.JavaTokenizer):
    """javalang's tokenizer without its first step, which replaces every
    ``\\uXXXX`` escape by its character before tokenizing, so that every
    position after an escape (``'\\u3002'``) pointed to the wrong column of
    the source. Escapes stay as written: literals keep them, and an escape
    outside a literal or comment (rare) is a lexical error."""

    def pre_tokenize(self):
        self.data = self.decode_data()
        self.length = len(self.data)


class Parser(javalang.parser.Parser):
    """javalang's parser with parenthesized primaries kept whole (see
    :class:`Parenthesized`), and ``(a.b) + 1`` read as a sum (only a cast to a
    primitive type may precede a unary ``+``/``-``; javalang reads a cast)."""

    def parse_class_body_declaration(self):
        token = self.tokens.look()
        static = self.would_accept("static", "{")
        member = super().parse_class_body_declaration()
        if isinstance(member, list):
            member = Initializer(statements=member, static=static)
            member._position = token.position
        return member

    # ------------------------------------------------------ type positions
    # javalang keeps no position on a type: these record, on the node they
    # return, where each identifier of a type stands (``_types``), so that
    # no such identifier is read as a variable (:attr:`~.syntax.Method.types`).
    # A node that a failed attempt built is dropped with what it recorded.

    def _type_names(self, parse):
        """``parse()``'s node, with the positions of the identifiers it read
        (its own and those of the nodes it built) as ``_types``."""
        start = self.tokens.marker
        node = parse()
        node._types = [t.position for t in self.tokens.list[start : self.tokens.marker] if _is_identifier(t)]
        return node

    def parse_reference_type(self):
        return self._type_names(super().parse_reference_type)

    def parse_created_name(self):
        return self._type_names(super().parse_created_name)

    def parse_type_parameter(self):
        return self._type_names(super().parse_type_parameter)

    def parse_catch_clause(self):
        self.accept("catch", "(")
        self.parse_variable_modifiers()  # javalang's own parser drops them too
        parameter = jt.CatchClauseParameter(types=list())
        parameter._types = []
        while True:
            start = self.tokens.marker
            parameter.types.append(self.parse_qualified_identifier())
            parameter._types += [t.position for t in self.tokens.list[start : self.tokens.marker] if _is_identifier(t)]
            if not self.try_accept("|"):
                break
        parameter.name = self.parse_identifier()
        self.accept(")")
        block = self.parse_block()
        return jt.CatchClause(parameter=parameter, block=block)

    def parse_expression_3(self):
        prefix_operators = []
        while self.tokens.look().value in javalang.tokenizer.Operator.PREFIX:
            prefix_operators.append(self.tokens.next().value)
        if self.would_accept("("):
            try:
                with self.tokens:
                    lambda_exp = self.parse_lambda_expression()
                    if lambda_exp:
                        return lambda_exp
            except javalang.parser.JavaSyntaxError:
                pass
            try:
                with self.tokens:
                    self.accept("(")
                    cast_target = self.parse_type()
                    self.accept(")")
                    if not isinstance(cast_target, jt.BasicType) and self.tokens.look().value in ("+", "-", "++", "--"):
                        raise javalang.parser.JavaSyntaxError("not a cast")
                    expression = self.parse_expression_3()
                    return jt.Cast(type=cast_target, expression=expression)
            except javalang.parser.JavaSyntaxError:
                pass
        parenthesized = self.would_accept("(")
        primary = self.parse_primary()
        if parenthesized:
            primary = Parenthesized(expression=primary)
        primary.prefix_operators = prefix_operators
        primary.selectors = []
        primary.postfix_operators = []
        token = self.tokens.look()
        while token.value in "[.":
            selector = self.parse_selector()
            selector._position = token.position
            primary.selectors.append(selector)
            token = self.tokens.look()
        while token.value in javalang.tokenizer.Operator.POSTFIX:
            primary.postfix_operators.append(self.tokens.next().value)
            token = self.tokens.look()
        return primary


def _is_identifier(token) -> bool:
    return isinstance(token, javalang.tokenizer.Identifier)


__all__ = ["Parenthesized", "Initializer", "Tokenizer", "Parser"]
