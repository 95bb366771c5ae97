"""einsum's subscripts spelled otherwise, tried on a learner's code only (mend_changes.py lists them
with the other mends; einsum_words.py says them).

`torch.einsum("ij,jd->jd", w, v)` where `"ij,jd->id"` was meant: the output's letters in another order or
one of them another letter, a letter of the operands (or their `...`) left out of the output where two or
more are multiplied (`"htd,hsd->ts"`, the heads summed, where `"htd,hsd->hts"` was meant), two letters of an operand swapped (that operand read transposed), or of
every operand alike (a layout read as another library keeps it), or an operand's letter where it
shares another operand's (`"bqd,ckd->bqk"` where `"bqd,bkd->bqk"` was meant). Subscripts written
without `->` are read as einsum reads them, their output in alphabetical order (`"htd"` is
`"htd->dht"`), and the output's orders are tried first. Of one operand, only the output's letters
move: two of the operand's swapped give what the output's swapped give, and the output is where the
order meant is written. Where a spelling mends the very call that another mend transposes, gives its
operands swapped, or transposes before a `reshape`, the spelling is said first and the other is no
rival (`spelled_first`): the letters are where an einsum says its order. Two variables exchanged stay
a rival: `q` made from `key(x)` is a slip the letters cannot tell from theirs.

repair.py keeps a mend only where it gives the reference's output on every input the check tried.
"""

from __future__ import annotations

import ast
from itertools import combinations, permutations

from attention_by_hand.lab.einsum_words import explicit
from attention_by_hand.lab.mutant_edits import Change, call_name

__all__ = ["MAX_SUBSCRIPTS", "einsum_spellings", "spelled_first"]

# einsum spellings tried per call: two operands of four letters and an output of four, all (47), the 5 places
# of the one letter the output leaves out, and 6 layouts alike
MAX_SUBSCRIPTS = 58


def einsum_spellings(name: str, node: ast.Call, index: dict[int, int], line: int) -> list[Change]:
    """einsum's subscripts spelled otherwise: the output's letters reordered, one replaced by a letter
    of the operands it lacks or such a letter added, or two letters of one operand swapped."""
    if call_name(node) != "einsum" or not node.args or not isinstance(node.args[0], ast.Constant):
        return []
    written = node.args[0].value
    spec = explicit(written) if isinstance(written, str) else written  # `"htd"`, read as einsum reads it: `"htd->dht"`
    if not isinstance(spec, str) or spec.count("->") != 1 or spec.replace("...", "").count("."):
        return []
    # `...` (the leading axes) is one token: spelled `0` while the letters move, `...` again after
    inputs, output = spec.replace(" ", "").replace("...", "0").split("->")
    operands = inputs.split(",")
    if not all(o.replace("0", "x").isalpha() for o in operands) or (output and not output.replace("0", "x").isalpha()):
        return []
    letters = set(inputs) - {",", "0"}
    # with no `->`, the output's orders first (the written one first); then one letter, two swapped, the orders
    spelled = [inputs + "->" + "".join(p) for p in permutations(c for c in inputs if c in output)] if written != spec else []
    for i, letter in enumerate(output):
        for other in sorted(letters - set(output)):
            spelled.append(inputs + "->" + output[:i] + other + output[i + 1:])
    # a letter (or the `...`) left out of the output, which einsum sums over
    left_out = sorted(letters - set(output)) + (["0"] if "0" in inputs and "0" not in output else [])
    for other in left_out if len(operands) > 1 else ():
        spelled += [inputs + "->" + output[:i] + other + output[i:] for i in range(len(output) + 1)]
    for k, operand in enumerate(operands):  # an operand's letter for one the others use (`chkd` for `bhkd`)
        for i, letter in enumerate(operand):
            for other in sorted(letters - set(operand)) if letter != "0" else ():
                spelled.append(",".join(operands[:k] + [operand[:i] + other + operand[i + 1:]] + operands[k + 1:]) + "->" + output)
    for k, operand in enumerate(operands if len(operands) > 1 else ()):  # one operand: its output's letters move
        for i, j in combinations(range(len(operand)), 2):
            swapped = list(operand)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            spelled.append(",".join(operands[:k] + ["".join(swapped)] + operands[k + 1:]) + "->" + output)
    spelled += [inputs + "->" + "".join(p) for p in (permutations(output) if 2 <= len(output) <= 4 else ())]
    spelled += _layouts(operands, output)
    tried = [s.replace("0", "...") for s in dict.fromkeys(spelled) if s != inputs + "->" + output][:MAX_SUBSCRIPTS]
    return [Change(name, index[id(node.args[0])], "subscripts", s, "subscripts", f'`"{s}"` for `"{written}"`', line) for s in tried]


def _layouts(operands: list[str], output: str) -> list[str]:
    """The same two places swapped in every operand of as many letters: a layout read as another
    library keeps it (`bqhd,bkhd`, JAX's (batch, length, heads, d), for tensors that are (batch,
    heads, length, d)), said where two or more operands share it."""
    spelled = []
    for n in sorted({len(o) for o in operands}):
        same = [k for k, o in enumerate(operands) if len(o) == n and "0" not in o]
        for i, j in combinations(range(n), 2) if len(same) >= 2 else ():
            swapped = list(operands)
            for k in same:
                letters = list(swapped[k])
                letters[i], letters[j] = letters[j], letters[i]
                swapped[k] = "".join(letters)
            spelled.append(",".join(swapped) + "->" + output)
    return spelled


# a call's result or operands moved, where an einsum's letters say the order
_UNSPELLED = ("transpose", "args", "transpose_first")
# beside a spelling that is the best mend already, the rivals that move that call's result alone: two
# variables or operands exchanged may be the slip as well (`q` made from `key(x)`), and stay rivals
_RESULT_MOVED = ("transpose", "transpose_first")


def spelled_first(best: Change, mends: list[Change], nodes: dict[str, list[ast.AST]]) -> tuple[Change, list[Change]]:
    """(The einsum spelling said, the mends without the rivals it stands for), in three cases: `best` is
    a spelling (rivals that transpose that very call's result dropped); `best` transposes the call,
    swaps its operands or transposes it before a `reshape`, and a spelling of that call mends too (it is
    said, and those rivals dropped); else (best, mends). nodes: per function, its nodes in ast.walk order
    (a change's index counts them)."""
    if best.op == "subscripts":
        spelled, dropped = best, _RESULT_MOVED
    elif best.op in _UNSPELLED:
        inside = {id(n) for n in ast.walk(nodes[best.function][best.index])}
        spelled = next((c for c in mends if c.op == "subscripts" and c.function == best.function
                        and id(nodes[c.function][c.index]) in inside), None)
        dropped = _UNSPELLED
    else:
        spelled = None
    if spelled is None:
        return best, mends
    at = nodes[spelled.function][spelled.index]
    return spelled, [c for c in mends if not (c.op in dropped and c.function == spelled.function
                                              and any(n is at for n in ast.walk(nodes[c.function][c.index])))]
