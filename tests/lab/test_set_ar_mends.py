"""Mistakes of the kinds the retired set AR held, each written here another way than set AR's file,
and the one map from a node to the line of its statement that the mend families share."""

from __future__ import annotations

import ast

from attention_by_hand.lab.code_layout import statement_lines

ANNOTATED = '''
def scaled(x: Tensor, size: int = WIDTH) -> Tensor:
    if size:
        y = x * size
    return y
'''


def _names(tree: ast.AST) -> dict[str, list[ast.Name]]:
    found: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.setdefault(node.id, []).append(node)
    return found


def test_each_node_gets_the_line_of_its_innermost_statement():
    fdef = ast.parse(ANNOTATED).body[0]
    lines, names = statement_lines(fdef), _names(fdef)
    assert [lines[id(n)] for n in names["x"]] == [4]  # read in `y = x * size`, inside the `if`
    by_context = {type(n.ctx).__name__: lines[id(n)] for n in names["y"]}
    assert by_context == {"Store": 4, "Load": 5}  # `y = ...` inside the `if`, then `return y`
    assert lines[id(names["size"][0])] == 3  # the `if size:` test, not the `def` around it


def test_the_header_maps_to_the_def_line_only_when_asked():
    fdef = ast.parse(ANNOTATED).body[0]
    names = _names(fdef)
    header = [names["Tensor"][0], names["WIDTH"][0]]
    assert all(statement_lines(fdef)[id(n)] == 2 for n in header)
    assert not any(id(n) in statement_lines(fdef, header=False) for n in header)
