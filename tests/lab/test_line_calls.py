"""line_calls: which lines a hint may describe the calls of. The last setters of what a line reads
are those sure to have run before it: not a branch beside it, nor a nested function's local."""

from __future__ import annotations

import ast
import textwrap

from attention_by_hand.lab.line_calls import last_setters, return_line

SOURCE = textwrap.dedent("""\
    def backward(p, dp):
        D = p.sum()
        D = torch.inner(p, dp)
        unused = dp * 2
        return p * (dp - D)
    """)


def _fdef(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def test_the_last_line_that_gave_each_name_read_is_found():
    assert last_setters(_fdef(SOURCE), 5) == [3]


def test_only_lines_before_the_line_count():
    assert last_setters(_fdef(SOURCE), 2) == []


def test_a_name_given_a_value_in_a_branch_beside_the_line_is_said_by_no_line():
    source = """\
        def f(p, dp):
            D = p.sum()
            if p.dim() > 1:
                D = (p * dp).sum(-1)
            else:
                D = torch.inner(p, dp)
            return p * (dp - D)
        """
    assert last_setters(_fdef(source), 7) == []


def test_a_nested_functions_local_of_the_same_name_is_not_a_setter():
    source = """\
        def f(p, dp):
            D = torch.inner(p, dp)
            def helper():
                D = 3
                return D
            return p * (dp - D)
        """
    assert last_setters(_fdef(source), 6) == [2]


def test_a_setter_earlier_in_the_loop_body_holding_the_line_counts():
    source = """\
        def f(xs):
            total = 0
            for x in xs:
                part = x.cumsum(0)
                total = total + part
            return total
        """
    assert last_setters(_fdef(source), 5) == [2, 4]


def test_the_one_return_line_is_found_and_several_give_none():
    def one(x):
        y = x + 1
        return y

    def two(x):
        if x:
            return 1
        return 2

    assert return_line(one) == one.__code__.co_firstlineno + 2 and return_line(two) is None


def test_a_return_of_several_parts_each_its_own_gives_no_line_for_a_whole_output():
    def parts(x):
        return x + 1, x * 2

    def one_call(x):
        return divmod(x, 2)

    assert return_line(parts, parts=True) is None and return_line(one_call, parts=True) is not None
