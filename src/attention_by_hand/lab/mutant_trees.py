"""Where each node of a reference definition is, and fresh copies of a definition to change.

A change (mutant_edits.Change) names its node by its place in `ast.walk` order; a route is the way
from the definition down to that node, ((field, index), ...), so the same node can be found again
in a copy. The definitions are cached (mutants._definitions), so a definition's id stays its own
and its routes and pickled bytes are made once.

Left out: which changes there are (mutants.py) and how one is made (mutant_edits.py).
"""

from __future__ import annotations

import ast
import pickle

__all__ = ["routes", "routes_of", "follow", "fresh_copy"]


def routes(fdef: ast.FunctionDef) -> list[tuple]:
    """For each node of fdef in ast.walk order, the way to it from the root: ((field, index), ...)."""
    found: list[tuple] = []
    where = {id(fdef): ()}
    for node in ast.walk(fdef):
        route = where[id(node)]
        found.append(route)
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                where[id(value)] = route + ((field, None),)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        where[id(item)] = route + ((field, i),)
    return found


def follow(tree: ast.AST, route: tuple) -> tuple[ast.AST | None, ast.AST]:
    """(parent, node) at the end of `route` in `tree`."""
    parent, node = None, tree
    for field, index in route:
        parent, node = node, getattr(node, field) if index is None else getattr(node, field)[index]
    return parent, node


_PICKLED: dict[int, bytes] = {}


def fresh_copy(fdef: ast.FunctionDef) -> ast.AST:
    """A copy of a reference definition to change: pickled once (the definitions are cached), loaded each time."""
    if id(fdef) not in _PICKLED:
        _PICKLED[id(fdef)] = pickle.dumps(fdef, protocol=pickle.HIGHEST_PROTOCOL)
    return pickle.loads(_PICKLED[id(fdef)])


_ROUTES: dict[int, list[tuple]] = {}


def routes_of(fdef: ast.FunctionDef) -> list[tuple]:
    """routes, once per definition (the definitions are cached: their ids stay theirs)."""
    if id(fdef) not in _ROUTES:
        _ROUTES[id(fdef)] = routes(fdef)
    return _ROUTES[id(fdef)]
