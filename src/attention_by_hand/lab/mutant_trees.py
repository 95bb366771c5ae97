"""Where each node of a reference definition is, and copies of a definition to change.

A change (mutant_edits.Change) names its node by its place in `ast.walk` order; a route is the way
from the definition down to that node, ((field, index), ...), so the same node can be found again
in a copy. The definitions are cached (mutants._definitions), so a definition's id stays its own
and its routes are made once. A copy to change is new only along the routes of its changes.

Left out: which changes there are (mutants.py) and how one is made (mutant_edits.py).
"""

from __future__ import annotations

import ast
import copy

__all__ = ["routes", "routes_of", "copy_along"]


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


# id -> (the definition, its routes): the definition is kept with them, since an id is only its
# own while the object lives (mutants' cache of definitions is bounded: an evicted one's id was
# taken by another function's, which then got the old routes and was changed in place).
_ROUTES: dict[int, tuple[ast.FunctionDef, list[tuple]]] = {}


def routes_of(fdef: ast.FunctionDef) -> list[tuple]:
    """routes, once per definition."""
    kept = _ROUTES.get(id(fdef))
    if kept is None or kept[0] is not fdef:
        kept = _ROUTES[id(fdef)] = (fdef, routes(fdef))
    return kept[1]


def _shallow(node: ast.AST) -> ast.AST:
    """A new node with the same children, its lists of children new lists (a change may reorder them)."""
    new = copy.copy(node)
    for field, value in ast.iter_fields(node):
        if isinstance(value, list):
            setattr(new, field, list(value))
    return new


def copy_along(fdef: ast.FunctionDef, chosen_routes: list[tuple]) -> tuple[ast.AST, list[tuple[ast.AST, ast.AST]]]:
    """(a copy of fdef, [(parent, node) at the end of each route in it]): only the nodes on the
    routes are new; every other subtree is the definition's own, shared and never changed (a change
    builds new nodes over them). A tenth of the cost of a whole copy, for the thousands of changes
    a diagnosis builds."""
    root = _shallow(fdef)
    new_ids = {id(root)}
    found = []
    for route in chosen_routes:
        parent, node = None, root
        for field, index in route:
            child = getattr(node, field) if index is None else getattr(node, field)[index]
            if id(child) not in new_ids:
                child = _shallow(child)
                new_ids.add(id(child))
                if index is None:
                    setattr(node, field, child)
                else:
                    getattr(node, field)[index] = child
            parent, node = node, child
        found.append((parent, node))
    return root, found
