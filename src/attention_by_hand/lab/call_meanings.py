"""What a library call does, in words: the facts call_words.py says of a call in a quoted line that the
reference never makes, and that a mend's words quote (layout_mends.py).

Each entry is a fact about the call, not a cause: the call may be right and the mistake elsewhere.
Only calls whose meaning is easy to misread are here (`cumsum` taken for a sum, `split(2)` for two
pieces, `reshape` for a transpose).
"""

from __future__ import annotations

__all__ = ["CALLS"]

# the name of the call (a function's or a method's) -> what it does
CALLS = {
    "cumsum": "is a running (cumulative) sum: entry i adds up the entries up to i only",
    "segment_reduce": "cuts the data along its axis into CONSECUTIVE segments whose sizes `lengths` lists, in order "
                      "(they add up to that axis's length), and reduces each: segments of k entries take entries 0..k-1, "
                      "then k..2k-1, and so on, never every n-th entry",
    "meshgrid": "makes ONE grid per tensor it is given: one vector gives one grid (MATLAB's `[X, Y] = meshgrid(x)` makes "
                "two from one); two grids take two vectors, `meshgrid(a, b, indexing='ij')`",
    "searchsorted": "gives, for each value v, the place v would take in the sorted entries: how many are below v (with "
                    "`right=True`, how many are <= v), a running count; how many EQUAL v is the one minus the other",
    "cumprod": "is a running (cumulative) product: entry i multiplies the entries up to i only",
    "prod": "multiplies the entries into one number (per row, given `dim`): a few hundred probabilities below 1 "
            "multiply down past float32's smallest number to 0, whose log is -inf; a sum of their logs stays finite",
    "batch_norm": "normalises each CHANNEL, axis 1: with `training=True` by its mean and variance over the batch and "
                  "every other axis (with one token per row, (N, d_model), each column gets mean 0 and variance 1, not "
                  "each row: that is `layer_norm`), and otherwise (the default) by the running mean and variance it is given",
    "instance_norm": "normalises each channel (axis 1) of each item over the axes AFTER it, (N, C, L): with "
                     "(N, d_model) it has no axis after the channels to average over",
    "logcumsumexp": "is a running log-sum-exp: entry i takes the entries up to i only, not the whole row",
    "take": "reads its tensor as one flat row, its rows end to end: the positions it is given are positions "
            "in the flattened tensor, not one column of each row (that is `gather`)",
    "tensordot": "contracts, unless given `dims`, the last TWO axes of the first tensor with the first two of the "
                 "second (dims=2); a matrix product is `a @ b`, or `dims=1`",
    "unique": "keeps each distinct value (or row, with `dim=0`) once, sorted, and only the values that occur: "
              "`return_counts=True` gives one tally per value present, never a 0 for one absent; what "
              "`return_inverse=True` adds is each entry's position among those kept, not a count",
    "unique_consecutive": "keeps one of each run of equal values, so a repeated one counts once per run",
    "block_diag": "puts each matrix in its own block on the diagonal, zeros everywhere else, so its shape is the "
                  "sum of their rows by the sum of their columns; side by side is `torch.cat(..., dim=-1)`",
    "dstack": "joins along the THIRD axis (axis 2), after making each tensor at least 3-D: n (T, T) matrices "
              "give (T, T, n); `torch.stack` puts the new axis first",
    "hstack": "joins along axis 1 (along axis 0 for 1-D tensors)",
    "vstack": "joins along axis 0, each 1-D tensor as a row",
    "column_stack": "joins along axis 1, each 1-D tensor as a column",
    "tensor_split": "given a list, cuts BEFORE each index in it (an int is a number of pieces), so an index 0 "
                    "makes an empty first piece",
    "outer": "multiplies every pair, a[i] * b[j] (every pair's difference is `a[:, None] - b[None, :]`)",
    "inner": "takes the dot product over the last axis of EVERY row of the first with every row of the second: "
             "two (n, d) matrices give (n, n), not one dot product per row (`(a * b).sum(-1)`)",
    "index_copy_": "writes the rows it is given in place of what was there, so a second write to a row replaces "
                   "the first (`index_add_` adds)",
    "index_copy": "writes the rows it is given in place of what was there, so a second write to a row replaces "
                  "the first (`index_add` adds)",
    "triu_indices": "returns the row and the column numbers of the triangle's cells, a (2, n) tensor of "
                    "integers, not a mask",
    "tril_indices": "returns the row and the column numbers of the triangle's cells, a (2, n) tensor of "
                    "integers, not a mask",
    "most_common": "keeps, given n, only the n most frequent items (a Counter's method)",
    "kthvalue": "is the k-th SMALLEST value along the axis: `kthvalue(1)` is the minimum",
    "trapezoid": "integrates by the trapezoidal rule: the first and the last entry count half, so it is not the sum",
    "std_mean": "returns the standard deviation (not the variance), then the mean",
    "vjp": "returns a pair, the function's output first: `torch.autograd.functional.vjp` then the vector-Jacobian "
           "products (the gradients), `torch.func.vjp` a function that computes them",
    "eye": "is the identity: ones on the diagonal, zeros everywhere else",
    "diag": "makes a diagonal matrix of a 1-D tensor but returns the diagonal of a 2-D one; given an offset k, "
            "n entries make an (n + |k|, n + |k|) matrix",
    "diagflat": "flattens its input first and lays every entry on one diagonal: a batch of rows gives ONE (N, N) "
                "matrix of all N entries, not a diagonal matrix per row (that is `torch.diag_embed`)",
    "diagonal": "returns a diagonal's entries, not a matrix, and takes it across the FIRST two axes "
                "unless `dim1=` and `dim2=` say otherwise",
    "median": "is the middle value (the lower of the two middle ones for an even count), not the mean",
    "dropout": "randomly zeroes entries and scales the rest by 1 / (1 - p), anew on every call "
               "(`F.dropout` does so unless it is given `training=False`)",
    "cdist": "is the distance between rows, |a - b|, not their dot product",
    "argmax": "is the position of the largest entry: an index, not a weight",
    "argmin": "is the position of the smallest entry: an index, not a weight",
    "var": "divides by n - 1 unless told otherwise (`unbiased=False` or `correction=0` divides by n)",
    "std": "divides by n - 1 unless told otherwise (`unbiased=False` or `correction=0` divides by n)",
    "norm": "is a length (by default the square root of the sum of squares); given no `dim`, it is one number for "
            "the whole tensor, not one per row (and `torch.linalg.norm` with `ord=1` of a matrix is its largest "
            "column sum)",
    "roll": "shifts with wrap-around: what leaves one end comes back at the other",
    "apply_": "calls the Python function on each ENTRY alone, a plain Python number, never on a row, and writes "
              "the results in place; torch's own operations act on whole rows (`dim=`)",
    "map_": "calls the Python function on each pair of entries alone, plain Python numbers, never on a row",
    "flip": "reverses the order along an axis",
    "repeat_interleave": "repeats each entry in place (a a b b), unlike `repeat` (a b a b)",
    "repeat": "repeats the whole tensor (a b a b), unlike `repeat_interleave` (a a b b)",
    "tril": "keeps the lower triangle, on and below the diagonal (moved by `diagonal=`)",
    "triu": "keeps the upper triangle, on and above the diagonal (moved by `diagonal=`)",
    "split": "cuts pieces of the size it is given (an int is a piece's size, not the number of pieces)",
    "chunk": "cuts at most the number of pieces it is given (not pieces of that size)",
    "stack": "puts the tensors on a NEW axis, at the place `dim` names (its default, 0, makes it the first; -1 the last)",
    "view": "reads the entries in row-major order (the last axis fastest) and regroups them: it never moves an axis",
    "reshape": "reads the entries in row-major order (the last axis fastest) and regroups them: it never moves an axis",
    "sigmoid": "squashes each entry on its own, 1 / (1 + exp(-x)): a row of them is no distribution",
    "relu": "sets every negative entry to 0",
    "abs": "drops every sign",
    "sign": "gives -1, 0 or 1 by each entry's sign (made a bool, -1 is True, as every number but 0 is)",
    "unbind": "removes the axis: each piece has one axis fewer, (...,) from (..., n) along the last (`split(1, dim)` "
              "keeps it, (..., 1))",
    "hardtanh": "clips into [-1, 1] unless given other bounds (`min_val`, `max_val`)",
    "nan_to_num": "replaces NaN (and the infinities) by numbers and leaves every finite entry as it is: it adds "
                  "nothing to a 0",
    "floor_divide": "rounds each quotient DOWN, toward -inf, to a whole number (0.5 becomes 0, -0.5 becomes -1); `/` "
                    "keeps the fraction",
    "set_": "makes the tensor use another tensor's storage: a view it was (a `narrow` or a slice of another) stops "
            "being one, and nothing is written into what it viewed; `copy_` writes values",
    "atleast_1d": "leaves a tensor of one or more axes as it is (a 1-D tensor stays 1-D, and its `.T` is itself)",
    "clamp": "cuts the values off at its bounds, only at those it is given: with `max` alone, values below are "
             "left as they are (negatives stay negative), with `min` alone, values above",
    "clip": "cuts the values off at its bounds, only at those it is given: with `max` alone, values below are "
            "left as they are (negatives stay negative), with `min` alone, values above",
    "normalize": "divides each vector along `dim` (1 by default, not the last axis) by its length (2-norm by default; "
                 "`p=1` the sum of absolute values, `p=inf` the LARGEST absolute entry); a second argument given by "
                 "position is `p`, the norm's order, not the axis",
    "isin": "asks of each entry of its first argument whether it occurs ANYWHERE among the second's entries: one True "
            "or False per entry, never a row per entry (a one-hot row compares with `==` against `arange(V)`)",
    "scatter_add": "adds each entry of `src` at the place its OWN entry of `index` names along `dim`: `index` has as "
                   "many axes as `src` (one target per entry); whole rows added at row numbers are `index_add`",
    "scatter_add_": "adds each entry of `src` at the place its OWN entry of `index` names along `dim`: `index` has as "
                    "many axes as `src` (one target per entry); whole rows added at row numbers are `index_add_`",
    "hypot": "is sqrt(a ** 2 + b ** 2): it squares BOTH arguments, so `hypot(std, eps)` adds eps ** 2, not eps",
    "nansum": "skips every nan as if it were 0",
    "nanmean": "skips every nan, averaging the rest",
    "expand": "repeats along axes of size 1 without copying: every copy is the same memory",
    "narrow": "takes `length` entries from `start` along an axis",
    "masked_select": "returns the entries the mask picks as one flat 1-D tensor: every axis of the input is gone",
    "func.grad": "makes a function that differentiates f with respect to its FIRST argument alone, unless told "
                 "others: `argnums=(0, 1, 2)` gives one gradient per argument, as a tuple",
    "gather": "takes, along `dim`, the entries its index tensor names, counted from 0 (an index below 0 is "
              "refused); its index is not broadcast: the output has the index's shape, so where the index has one "
              "entry on an axis (the batch, the heads) only the first slice there is read",
    "index_fill": "fills whole slices: along `dim`, every entry of each slice the indices name (a row's or a column's all)",
    "renorm": "scales down each slice along `dim` whose p-norm is over `maxnorm`, to that norm; no slice is made to sum to 1",
    "logsumexp": "is the log of the sum of the exponentials, not the sum itself",
    "logaddexp": "is log(exp(a) + exp(b)), the log of a SUM of two exponentials; the log of a product, "
                 "log(exp(a) * exp(b)), is plain `a + b`",
    "round": "rounds every value (to a whole number, or to `decimals=` places): the digits after it are lost",
    "histc": "counts values into `bins` equal bins from `min` to `max`; left at 0 and 0 (the default), "
             "the bins span the data's own smallest to largest value",
    "layer_norm": "rescales each vector over its last axes to mean 0 and variance 1 (times a weight, plus a bias, if given)",
    "expm1": "is exp(x) - 1, not exp(x)",
    "count_nonzero": "counts the entries that are not 0, not their sum",
    "linspace": "spaces `steps` points from `start` to `end`, both ends included",
    "log_softmax": "is the log of the softmax, not the softmax",
    "softmax": "takes the exp of each entry before dividing by the row's sum: from counts or weights already >= 0 "
               "that is exp(c) / sum(exp(c)), not c / sum(c)",
    "log1p": "is log(1 + x), not log(x)",
    "group_norm": "takes axis 1 as the channels, not the last axis: it normalises each group over its channels and "
                  "every axis after them, with one weight per channel (axis 1)",
    "Categorical": "reads `logits=` as scores and makes them probabilities with a softmax (exp, then divided by the "
                   "row's sum); only `probs=` takes numbers that are already weights and divides each row by its sum",
    "entropy": "of a distribution is -sum p log p over its own outcomes, each weighted by its own probability: it never "
               "looks at which outcome came; the loss of a text is -log p of each next id, `-dist.log_prob(next_ids)`",
    "cross_entropy": "takes SCORES (logits), the classes along axis 1 (one row per item of an (N, C) input), and "
                     "with class numbers for targets applies log_softmax to them itself (it is "
                     "`nll_loss(log_softmax(x, dim=1), target)`): rows that are probabilities already are taken as "
                     "scores and put through a softmax again",
    "as_strided": "counts its strides in ELEMENTS, not bytes (NumPy's `as_strided` takes its strides in bytes): in a "
                  "contiguous (T, d) tensor one row on is d elements, one column on is 1",
    "adaptive_max_pool1d": "takes the size of its OUTPUT, how many maxima each row is pooled into, not the window's: "
                           "`adaptive_max_pool1d(x, 1)` keeps each row's largest value, and a size equal to the row's "
                           "length keeps every entry",
    "adaptive_avg_pool1d": "takes the size of its OUTPUT, how many means each row is pooled into, not the window's: "
                           "`adaptive_avg_pool1d(x, 1)` gives each row's mean, and a size equal to the row's length "
                           "keeps every entry",
    "binary_cross_entropy": "scores every entry as a yes/no guess of its own, -(t log p + (1 - t) log(1 - p)), averaged "
                            "over every entry: each wrong answer's probability counts too, not only the true one's",
    "binary_cross_entropy_with_logits": "scores every entry as a yes/no guess of its own after a sigmoid, averaged over "
                                        "every entry: each wrong answer counts too, not only the true one",
    "scaled_dot_product_attention": "reads a bool `attn_mask` as True = may attend (the opposite of a mask of hidden "
                                    "cells), adds a float one to the scores, and divides by sqrt(head_size) itself unless given `scale=`",
    "nonzero": "returns the positions of the entries that are not 0, (number of them, number of axes) integers, "
               "not a mask (a mask is the comparison itself, `x != 0`)",
    "squeeze": "drops, given no axis, EVERY axis of size 1 (a batch of one, a single head and a sequence of one alike); "
               "`squeeze(dim)` drops that one alone",
    "movedim": "moves the axes it is given to the places it is given and keeps the others in their order: no swap "
               "of two axes, unless they are neighbours",
    "rot90": "turns the matrix a quarter turn, a transpose and a flip: not a transpose",
    "argsort": "gives, for each place of the sorted order, the index of the entry that goes there, not each entry's "
               "rank (the rank is the argsort of the argsort)",
    "addcdiv": "adds `value * t1 / t2` to its tensor, `value` being one number, not a tensor",
    "addcmul": "adds `value * t1 * t2` to its tensor, `value` being one number, not a tensor",
    "dsplit": "splits along the THIRD axis (axis 2), of a tensor of at least three axes",
    "hsplit": "splits along axis 1 (axis 0 of a 1-D tensor)",
    "vsplit": "splits along axis 0",
    "bmm": "multiplies batches of matrices, both exactly 3-D, (b, n, m) and (b, m, p), with no broadcasting (`@` broadcasts)",
    "dot": "is, on torch's tensors, the dot product of two 1-D vectors alone, one number: it refuses a matrix "
           "(a matrix product is `@` or `matmul`)",
    "vecdot": "is the dot product of matching VECTORS along one axis (the last, or `dim=`), the other axes broadcast "
              "against each other: one number per pair of vectors, never a matrix product (`@` or `matmul`)",
    "mv": "multiplies a MATRIX by a VECTOR, 2-D by 1-D: a second matrix is refused (`@` or `mm` multiplies two)",
    "mm": "multiplies two matrices, both exactly 2-D, with no broadcasting (`@` takes batches)",
    "baddbmm": "is `beta * input + alpha * (batch1 @ batch2)` for batches of matrices: `batch1` and `batch2` must be "
               "exactly 3-D, (b, n, m) and (b, m, p), with no broadcasting, and `beta` and `alpha` are single numbers",
    "addmm": "is `beta * input + alpha * (mat1 @ mat2)` for two matrices, exactly 2-D; `beta` and `alpha` are single "
             "numbers, not a tensor of one per row",
    "kron": "is the Kronecker product, every entry of the first times the whole second: a block matrix, not a product "
            "of matrices",
    "trace": "sums the main diagonal of one matrix into one number",
    "cummax": "is a running maximum: entry i is the largest up to i (with its index), not the row's largest",
    "unfold": "cuts, as `x.unfold(dim, size, step)`, windows of `size` entries every `step` along `dim` and puts "
              "each window's entries on a new LAST axis",
    "exp2": "is 2 to the power, not e to the power: `exp2(x)` is `exp(x * ln 2)`, the inverse of `log2`, not of the "
            "natural log that `log` and `logsumexp` take",
    "softmin": "is the softmax of the NEGATED input, softmax(-x): the smallest entry gets the largest weight, and "
               "a -inf entry becomes +inf, which makes its row NaN",
    "cosine_similarity": "divides the dot product by both vectors' lengths: it is the cosine of their angle, between "
                         "-1 and 1, not the dot product `(a * b).sum(-1)`",
    "flatten": "joins the axes from `start_dim` through `end_dim` into one, through the LAST axis unless `end_dim` is "
               "given (`flatten(1)` joins axis 1 with every axis after it)",
    "add": "given `alpha`, multiplies only the tensor being added, `a.add(b, alpha=c)` is `a + c * b`, not the sum",
    "sub": "given `alpha`, multiplies only the tensor being subtracted, `a.sub(b, alpha=c)` is `a - c * b`",
    "log2": "is the logarithm in base 2, not the natural log",
    "logit": "is the log-odds, log(p / (1 - p)), not the log of p",
    "log10": "is the logarithm in base 10, not the natural log",
    "rsqrt": "is 1 / sqrt(x), the reciprocal of the square root",
    "softplus": "is log(1 + exp(x)), a smooth ReLU: each entry on its own, no distribution",
    "bincount": "counts how often each whole number 0, 1, 2, ... occurs (given `weights`, it sums them instead); "
                "its length is the largest number plus one unless `minlength` is larger",
    "scatter": "writes, and does not add: of two writes to one place only one is kept, which one undefined "
               "(`scatter_add` adds)",
    "index_put": "writes, and adds only with `accumulate=True`: a position given twice is written once, not counted twice; "
                 "its tuple holds one index tensor per axis, from the first, so a tuple of one picks whole rows",
    "entr": "is -x * log(x), one term of an entropy, each weighted by its own x: not the surprisal -log(x)",
    "pdist": "returns only the distances of the pairs i < j, as one flat vector of n (n - 1) / 2 (SciPy's condensed "
             "form), not the (n, n) matrix (that is `cdist(x, x)`)",
    "slice_scatter": "returns a copy of its tensor with the slice REPLACED by what it is given (what was there is gone, "
                     "nothing is added), and leaves the tensor it is called on as it was; the slice runs from `start` to "
                     "`end`, and without `end` to the end of the axis",
    "select_scatter": "returns a copy of its tensor with the slice REPLACED by what it is given (what was there is gone, "
                      "nothing is added), and leaves the tensor it is called on as it was",
    "put": "reads its tensor as one flat row, its rows end to end: index i is entry i of the flattened tensor, "
           "not row i (one index per axis is `index_put`, or `t[rows, cols] = ...`)",
    "sparse_coo_tensor": "takes each axis's length, where no `size` is given, from the largest index on it, plus 1: "
                         "an id that never occurs in the last place makes the table smaller than the vocabulary",
    "coalesce": "sums a sparse tensor's repeated indices and leaves it sparse: its `values()` are then the stored "
                "entries alone, one per distinct index, not the table (`to_dense()` makes the table)",
    "conj": "takes the complex conjugate and transposes nothing: a real tensor comes back as it was (`.mT` "
            "transposes the last two axes; `.mH` conjugates and transposes)",
    "new_tensor": "copies the data it is given into a new tensor: one number gives a 0-d tensor holding that "
                  "number, not the numbers 0 to n - 1 (that is `arange`)",
    "unravel_index": "turns FLAT indices into coordinates, one tensor per axis; it does not go the other way: the "
                     "flat index of the cell (i, j) of a table n wide is `i * n + j`",
    "histogramdd": "given a number of bins per column and no `range`, spreads them over the values present, from "
                   "the smallest to the largest in each column: the bins follow the data, not every id the counts "
                   "should cover (given the edges, it takes them as they are); it returns the counts and the edges",
    "histogram": "given a number of bins and no `range`, spreads them over the values present, from the smallest to "
                 "the largest: the bins follow the data (given the edges, it takes them as they are); it returns the "
                 "counts and the edges",
    "equal": "returns ONE Python bool, whether the two tensors have the same shape and every entry equal: entry by entry "
             "is `torch.eq` or `==`",
    "topk": "returns a pair, the k largest values (the smallest, given `largest=False`) and their indices (`.values`, `.indices`), as `max` given a `dim` "
            "does: the pair itself is no tensor",
    "cross": "is the cross product of vectors of 3 entries (a vector at right angles to both), taken along an axis "
             "of length 3: no matrix product (`a.T @ b`) and no outer product",
    "linear": "is `x @ weight.T` (+ bias, where given): it transposes its weight, which a layer keeps as (out, in); `x @ w` is "
              "`F.linear(x, w.T)`",
    "permute": "takes, for each place of the result, the axis that goes there, one number for EVERY axis "
               "(`x.permute(2, 0, 1)` puts the last axis first): given fewer it raises; two axes swapped is `transpose`",
    "fmax": "compares two tensors entry by entry and returns one tensor, not a pair: it has no `.values` (that is "
            "`max(dim=...)`'s pair)",
    "maximum": "compares two tensors entry by entry and returns one tensor, not a pair: it has no `.values` (that is "
               "`max(dim=...)`'s pair)",
    "vdot": "takes two 1-D vectors and gives one number (the first conjugated): it takes no batch; row by row is "
            "`(a * b).sum(-1)` (for real tensors)",
    "combinations": "gives every pair (a[i], a[j]) with i < j, neighbours or not (every choice of r entries, r = 2 by "
                    "default): n entries give n (n - 1) / 2 pairs; the n - 1 neighbouring pairs are `a[:-1]` with `a[1:]`",
}
