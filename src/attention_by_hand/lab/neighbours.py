"""A function's neighbours: the ones a learner writes for it by a slip of the mind, and what each does
instead, in words.

mutants.py renames a call of the reference to each of its neighbours (a change that may give the
learner's outputs), and the same rename of a learner's call is a mend (repair.py): `clamp_min` for
`clamp_max`, `atleast_1d` for `atleast_2d`, one letter or one digit apart. The words are said of a
change of the reference and of a mend of the learner's code alike, so each pair's words hold either way.
"""

from __future__ import annotations

import ast

__all__ = ["BUILTIN_NEIGHBOURS", "ELEMENTWISE", "KEYWORD_FOR", "NEIGHBOURS", "NEIGHBOUR_WORDS", "builtin_pair"]

# Each function's neighbours, the ones a learner writes by a slip of the mind (or of the base:
# exp2 and log2 for exp and log).
NEIGHBOURS = {"max": ("min",), "min": ("max",), "amax": ("amin", "mean"), "amin": ("amax", "mean"), "sin": ("cos",), "cos": ("sin",),
              "triu": ("tril",), "tril": ("triu",), "sum": ("mean",), "mean": ("sum",), "exp": ("log", "exp2", "sigmoid", "expm1"),
              "log": ("exp", "log2", "log10", "log1p"), "log2": ("log",), "log10": ("log",), "exp2": ("exp",),
              "log1p": ("log",), "expm1": ("exp",), "cat": ("stack",), "stack": ("cat",), "softmax": ("exp", "sigmoid"),
              "empty_like": ("zeros_like",), "empty": ("zeros",), "new_empty": ("new_zeros",), "eye": ("zeros",),
              "ones_like": ("zeros_like",), "zeros_like": ("ones_like",), "ones": ("zeros", "eye"), "zeros": ("ones",),
              "new_zeros": ("new_ones",), "new_ones": ("new_zeros",),
              # one letter or one word apart, each the other's mirror: rows for columns, largest for smallest
              "vstack": ("hstack",), "hstack": ("vstack",), "argmax": ("argmin",), "argmin": ("argmax",),
              "maximum": ("minimum",), "minimum": ("maximum",), "floor": ("ceil",), "ceil": ("floor",),
              "tril_indices": ("triu_indices",), "triu_indices": ("tril_indices",), "cummax": ("cummin",), "cummin": ("cummax",),
              # not sqrt's isqrt: torch has none, and the error that raises may match a learner's
              "isqrt": ("sqrt",), "heaviside": ("relu",), "cumsum": ("cumprod",), "cumprod": ("cumsum",),
              "xlogy": ("xlog1py",), "xlog1py": ("xlogy",), "atleast_1d": ("atleast_2d",), "atleast_2d": ("atleast_1d",),
              "clamp_min": ("clamp_max",), "clamp_max": ("clamp_min",), "any": ("all",), "all": ("any",),
              # a division that rounds for one that does not; a storage swapped for values written (`set_` is no setter)
              "floor_divide": ("div",), "div": ("floor_divide",), "true_divide": ("floor_divide",), "set_": ("copy_",),
              # a sign read as a step (relu's 0 for negatives); a root typed for a square, one word apart
              "sign": ("relu",), "sqrt": ("square",), "square": ("sqrt",),
              # the sine's completion-list neighbour (only the learner's `sinc` is renamed: the references call no sinc)
              "sinc": ("sin",),
              # tril's completion-list neighbour (only the learner's `trunc` is renamed: the references call no trunc)
              "trunc": ("tril",),
              # "multiply" read as the matrix product
              "mul": ("matmul",), "multiply": ("matmul",),
              # a sum for a difference, as `+` for `-` (a max-shift added: softmax's values kept, its overflow not)
              "add": ("sub",), "sub": ("add",), "subtract": ("add",)}
# (the neighbour, a keyword of the call renamed) -> that keyword's name in the neighbour ("": left out)
KEYWORD_FOR = {("clamp_max", "min"): "max", ("clamp_min", "max"): "min", ("floor_divide", "rounding_mode"): ""}
BUILTIN_NEIGHBOURS = {"max", "min"}  # Python's own functions renamed like torch's: `max(a, b)` for `min(a, b)`


def builtin_pair(node: ast.Call, name: str) -> bool:
    """`min(a, b)` of Python's own, neither a number: `min(x, 8)` made `max(x, 8)` is `x` wherever x
    passes 8, a cap taken away by chance, not the other function."""
    return (isinstance(node.func, ast.Name) and name in BUILTIN_NEIGHBOURS and len(node.args) == 2 and not node.keywords
            and not any(isinstance(a, ast.Constant) for a in node.args))


ELEMENTWISE = {"exp", "sigmoid", "relu"}  # neighbours that take no axis (nor heaviside's second argument)
# What the learner's function does instead, where its name alone does not say it.
NEIGHBOUR_WORDS = {
    ("stack", "cat"): " (stack puts the tensors on a NEW axis; cat joins them along one they have)",
    ("cat", "stack"): " (cat joins the tensors along an axis they have; stack puts them on a new one)",
    ("sigmoid", "exp"): " (sigmoid(s) = 1 / (1 + exp(-s)) is no exponential)",
    ("exp", "softmax"): " (the exps never divided by their row's sum)",
    ("sigmoid", "softmax"): " (each weight squashed on its own; a softmax divides by the row's sum, so that rows sum to 1)",
    ("zeros", "eye"): " (eye is the identity: ones on the diagonal, so each row keeps its own entry)",
    ("eye", "ones"): " (eye is the identity, ones on the diagonal alone; ones fills every entry)",
    ("log1p", "log"): " (log1p(x) is log(1 + x), not a more accurate log(x))",
    ("expm1", "exp"): " (expm1(x) is exp(x) - 1, not a more accurate exp(x))",
    # said of a change of the reference and of a mend of the learner's code alike: no side is the slip
    **dict.fromkeys((("zeros_like", "ones_like"), ("zeros", "ones"), ("ones_like", "zeros_like"), ("ones", "zeros"),
                     ("new_zeros", "new_ones"), ("new_ones", "new_zeros")),
                    " (zeros start a sum or a count at 0; ones start it at 1)"),
    **dict.fromkeys((("tril", "triu"), ("triu", "tril")),
                    " (tril keeps the LOWER triangle and triu the UPPER, each on and beyond the diagonal its `diagonal=` "
                    "names, the main one by default)"),
    **dict.fromkeys((("tril_indices", "triu_indices"), ("triu_indices", "tril_indices")),
                    " (tril_indices lists the cells of the LOWER triangle; triu_indices those of the UPPER)"),
    **dict.fromkeys((("vstack", "hstack"), ("hstack", "vstack")),
                    " (vstack puts the tensors one UNDER another, along axis 0; hstack side by side, along axis 1, "
                    "or end to end for 1-D tensors)"),
    **dict.fromkeys((("floor", "ceil"), ("ceil", "floor")), " (floor rounds DOWN, ceil rounds UP)"),
    **dict.fromkeys((("cumsum", "cumprod"), ("cumprod", "cumsum")),
                    " (cumsum ADDS the entries up to each place, a running total; cumprod MULTIPLIES them)"),
    **dict.fromkeys((("xlogy", "xlog1py"), ("xlog1py", "xlogy")),
                    " (xlogy(x, y) is x * log(y); xlog1py(x, y) is x * log(1 + y), so 0 at y = 0; both are 0 where x is 0)"),
    ("sin", "sinc"): " (sinc(x) is sin(pi x) / (pi x), the normalised sinc, 1 at 0: not the sine)",
    ("tril", "trunc"): " (trunc rounds every entry toward 0, dropping its fraction; it zeroes no triangle, as tril does above the diagonal)",
    **dict.fromkeys((("atleast_1d", "atleast_2d"), ("atleast_2d", "atleast_1d")),
                    " (atleast_1d leaves a tensor of one axis as it is, so its `.T` is itself; atleast_2d makes a "
                    "1-D tensor of n entries a (1, n) row, whose `.T` is an (n, 1) column)"),
    **dict.fromkeys((("clamp_min", "clamp_max"), ("clamp_max", "clamp_min")),
                    " (clamp_min RAISES every entry below its bound up to it; clamp_max LOWERS every entry above it)"),
    **dict.fromkeys((("any", "all"), ("all", "any")),
                    " (any is true where at least ONE entry along the axis is; all only where EVERY one is)"),
    **dict.fromkeys((("floor_divide", "div"), ("div", "floor_divide"), ("floor_divide", "true_divide")),
                    " (floor_divide rounds each quotient DOWN, toward -inf, to a whole number: 0.5 becomes 0 and "
                    "-0.5 becomes -1; div and true_divide keep the fraction)"),
    ("copy_", "set_"): (" (set_ makes the tensor use another tensor's storage: a view (a slice, a `narrow`) then stops "
                        "being one, and nothing is written into what it viewed; copy_ writes the values into it)"),
    ("relu", "sign"): (" (sign makes every negative entry -1 and every positive one 1; relu makes a negative entry 0 and "
                       "keeps a positive one; made a bool, -1 is True, as every number but 0 is)"),
    **dict.fromkeys((("square", "sqrt"), ("sqrt", "square")),
                    " (sqrt is the square ROOT, nan for a negative entry of a tensor; torch's square multiplies each entry "
                    "by itself, and `math` has no square: `x ** 2`)"),
    **dict.fromkeys((("matmul", "mul"), ("matmul", "multiply")),
                    " (mul multiplies entry by entry, as `*` does, with broadcasting; matmul is the matrix product, `@`)"),
    ("relu", "heaviside"): " (heaviside is a STEP, 1 for every d > 0 however large; relu, max(d, 0), grows with d)",
    ("sqrt", "isqrt"): " (math.isqrt is the INTEGER square root, rounded down: isqrt(8) is 2, not 2.83)",
    **dict.fromkeys((("zeros_like", "empty_like"), ("zeros", "empty"), ("new_zeros", "new_empty")),
                    " (an empty tensor is never cleared: what is added to it starts from whatever the memory held; "
                    "the check fills it with nan)"),
}
