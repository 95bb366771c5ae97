"""Mistakes of the kinds the retired set AE held, each written here another way than set AE's file:
a running value's twin never carried on at the end of a loop's pass, F.pad's pairs read (after,
before), and an input changed in place, now said at the line that changed it with what on that line
writes in place; and a row's place among several axes, said without torch's unravel_index."""

from __future__ import annotations

import ast
import importlib.util

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_by_hand.lab.changed_where import change_made, first_change, writes_into
from attention_by_hand.lab.loop_starts import loop_carries
from attention_by_hand.lab.row_factors import unravel
from labhelpers import REFERENCES, failed_hints, load_lab

# the running maximum's next value kept under `best_next`, read from `best`, never carried on: every
# pass measures against the start, -inf
MAX_NEVER_CARRIED = '''
def online_softmax(scores):
    best = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype)
    total = torch.zeros(scores.shape[:-1], dtype=scores.dtype)
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        best_next = torch.maximum(best, s)
        total = total * torch.exp(best - best_next) + torch.exp(s - best_next)
    return torch.exp(scores - best_next[..., None]) / total[..., None]
'''


def test_a_twin_never_carried_on_is_said_as_the_assignment_the_loop_lacks(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", MAX_NEVER_CARRIED, "online_softmax")
    assert found and all("never carries `best_next` on into `best`" in h for h in found)
    assert all("with `best = best_next` added at the end of the loop over `j`" in h for h in found)


def _carries(code: str) -> list[tuple[str, str]]:
    fdef = ast.parse(code).body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    return [c.arg for c in loop_carries(fdef, index)]


def test_no_carry_is_tried_where_the_loop_sets_the_name_itself():
    carried_on = '''
def f(xs):
    top = xs[0]
    for x in xs:
        new_top = max(top, x)
        top = new_top
    return top
'''
    assert _carries(carried_on) == []


def test_a_carry_is_tried_only_for_a_twin_the_loop_sets():
    twin_outside = '''
def f(xs):
    acc = 0
    acc_next = 1
    for x in xs:
        y = acc + x
    return acc_next
'''
    assert _carries(twin_outside) == []
    assert _carries(twin_outside.replace("y = acc + x", "acc_next = acc + x")) == [("acc", "acc_next")]


# the room for the new entries made in front of the old ones ((after, before) read for each pair),
# the new entries then written at the end over the last old ones; a list, not a tuple, of four
PAD_PAIRS_READ_BACKWARDS = '''
def append_to_cache(cache, k_new, v_new):
    n = k_new.shape[-2]
    out = []
    for past, fresh in zip(cache, (k_new, v_new)):
        wider = torch.nn.functional.pad(past, [0, 0, n, 0])
        wider[..., past.shape[-2]:, :] = fresh
        out.append(wider)
    return out[0], out[1]
'''


def test_fpads_pairs_read_after_before_are_said_as_before_after(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", PAD_PAIRS_READ_BACKWARDS, "append_to_cache")
    assert found and all("each axis's pair is (before, after)" in h for h in found)
    assert all("`[0, 0, 0, n]` for `[0, 0, n, 0]`" in h for h in found)


# the position table's rows clipped to norm 1 by the lookup itself, which writes them back into the
# table: the learner's output is right to the checker's eye only where no row was longer than 1
CLIPPED_IN_THE_TABLE = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(tokens.shape[-1]) + start
    pos = torch.embedding_renorm_(position_embedding.weight, where, 0.5, 2.0)[where]
    return token_embedding(tokens) + pos
'''


def test_an_input_changed_in_place_is_said_at_its_line_with_the_call_that_wrote_it(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", CLIPPED_IN_THE_TABLE, "embed_at")
    assert found and all(h.startswith("your function changed its input position_embedding in place (line ") for h in found)
    assert all("`embedding_renorm_`, with its trailing underscore, works in place" in h for h in found)


def test_each_in_place_form_has_its_own_words():
    assert "inside the weight itself" in writes_into("e = F.embedding(i, w, max_norm=2.0)")
    assert "`inplace=True` writes" in writes_into("h = F.relu(x, inplace=True)")
    assert "`out=` writes" in writes_into("torch.add(a, b, out=a)")
    assert "`clamp_`" in writes_into("x.clamp_(min=0)") and "`clamp` makes a new one" in writes_into("x.clamp_(min=0)")
    # a twin without the underscore is named only where a tensor has one: none is `zero`
    assert not hasattr(torch.Tensor, "zero") and "makes a new one" not in writes_into("acc.zero_()")
    assert "`w /= ...` writes into the tensor `w` names" in writes_into("w /= w.sum()")
    assert "assigning into `grid[...]`" in writes_into("grid[0, :] = 1.0")
    # a name that is also a keyword, assigned: the call on the line is what writes
    assert "`mul_`, with its trailing underscore" in writes_into("out = x.mul_(2)")


def test_a_line_that_writes_nothing_in_place_has_no_words():
    for code in ("y = x + 1", "if a == b:", "total = total + x", "ok = w[0] == 1", "f(x, dim=-1)", "out = x + 1",
                 "max_norm = 2.0", "inplace = True", "g(x, out == y)"):
        assert writes_into(code) == "", code


def _module(tmp_path, code: str):
    path = tmp_path / "learner.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


HELPED = '''
import torch


def shrink(t):
    t.mul_(0.5)


def outer(a, b):
    c = a + b
    shrink(b)
    return c + b


def keeps(t):
    return t + 0


def passes_a_changed_one(a):
    return keeps(a.mul_(3))


def changes_a_copy(a):
    b = a.clone()
    shrink(b)
    return b
'''


def test_a_change_made_in_a_helper_is_found_at_the_helpers_line(tmp_path):
    module, path = _module(tmp_path, HELPED)
    same = lambda x, y: bool(torch.equal(x, y))  # noqa: E731 - the comparer the checker passes
    found = change_made(module.outer, lambda: [torch.ones(3), torch.ones(3)], [1], same, path)
    assert found == (6, "t.mul_(0.5)")


def test_a_change_made_while_a_helpers_arguments_are_made_is_found_at_the_callers_line(tmp_path):
    module, path = _module(tmp_path, HELPED)
    same = lambda x, y: bool(torch.equal(x, y))  # noqa: E731 - the comparer the checker passes
    found = change_made(module.passes_a_changed_one, lambda: [torch.ones(3)], [0], same, path)
    assert found == (20, "return keeps(a.mul_(3))")


def test_a_call_that_changes_only_its_own_copy_finds_no_line(tmp_path):
    module, path = _module(tmp_path, HELPED)
    a = torch.ones(2)
    kept = a.clone()
    assert first_change(lambda: module.changes_a_copy(a), lambda: not torch.equal(a, kept), path) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.data())
def test_a_rows_place_is_torchs_unravel_index(shape, data):
    size = 1
    for n in shape:
        size *= n
    flat = data.draw(st.integers(0, size - 1))
    assert unravel(flat, tuple(shape)) == [int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(shape))]


# D as the row sums of a grid of every row's dot product with every other row (`@` with a transposed
# partner), where each row meets its own alone; `.mT` here, a `torch.sum` call around it
D_FROM_A_GRID = '''
def softmax_backward(p, dp):
    D = torch.sum(p @ dp.mT, dim=-1, keepdim=True)
    return p * (dp - D)
'''


def test_a_grid_of_dot_products_where_each_row_meets_its_own_is_said_as_the_entrywise_product(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", D_FROM_A_GRID, "softmax_backward")
    assert found and all("`p @ dp.mT` takes the dot product of every row of `p` with every row of `dp`" in h for h in found)
    assert all("with `p * dp` for `p @ dp.mT`" in h for h in found)


# the keys' block in dk's line cut by the queries' range (`a:b` where `c:d` belonged), in a loop over
# blocks written with other names than the lab's
KEYS_CUT_BY_THE_QUERY_RANGE = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    c = q.shape[-1] ** -0.5
    D = (d_out * out).sum(-1, keepdim=True)
    dq, dk, dv = q * 0, k * 0, v * 0
    for c0 in range(0, n, block):
        c1 = min(n, c0 + block)
        for r0 in range(c0 if causal else 0, n, block):
            r1 = min(n, r0 + block)
            s = (q[..., r0:r1, :] @ k[..., c0:c1, :].transpose(-2, -1)) * c
            if causal and r0 == c0:
                s = s.masked_fill(torch.ones(r1 - r0, c1 - c0).triu(1).bool(), float("-inf"))
            p = (s - lse[..., r0:r1].unsqueeze(-1)).exp()
            dv[..., c0:c1, :] += p.transpose(-2, -1) @ d_out[..., r0:r1, :]
            ds = p * (d_out[..., r0:r1, :] @ v[..., c0:c1, :].transpose(-2, -1) - D[..., r0:r1, :])
            dq[..., r0:r1, :] += ds @ k[..., c0:c1, :] * c
            dk[..., c0:c1, :] += ds.transpose(-2, -1) @ q[..., c0:c1, :] * c
    return dq, dk, dv
'''


def test_a_slice_cut_by_the_functions_other_range_is_said_with_both_bounds(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", KEYS_CUT_BY_THE_QUERY_RANGE, "tiled_attention_backward")
    assert found and all("the range `c0:c1` where the range `r0:r1` belongs" in h for h in found)
    assert all("with `q[..., r0:r1, :]` for `q[..., c0:c1, :]`" in h for h in found)


# a count used as an index where the first that many rows were meant; the count taken by len()
ROW_FOR_ROWS = '''
def embed(tokens, token_embedding, position_embedding):
    n = len(tokens[0]) if tokens.dim() == 2 else len(tokens)
    return token_embedding(tokens) + position_embedding.weight[n]
'''


def test_a_count_used_as_an_index_is_said_as_the_slice_it_was_meant_as(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", ROW_FOR_ROWS, "embed")
    assert found and all("`position_embedding.weight[n]` picks the one entry n along that axis" in h for h in found)
    assert all("with `position_embedding.weight[:n]` for `position_embedding.weight[n]`" in h for h in found)


# every other row cut where every other column was meant, the two halves written through a view
ROWS_FOR_COLUMNS = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    pos = torch.arange(n_positions, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(-math.log(base) * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    out = torch.empty(n_positions, d_model)
    out[::2] = torch.sin(pos * freq)
    out[1::2] = torch.cos(pos * freq)
    return out
'''


def test_every_other_row_cut_where_columns_were_meant_is_said_as_the_axis_one_slice_cuts(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", ROWS_FOR_COLUMNS, "sinusoidal_table")
    assert found and all("`out[::2]` cuts the FIRST axis, the rows" in h for h in found)
    assert all("and the same once more" in h for h in found)


def _described(code: str) -> dict[str, str]:
    from attention_by_hand.lab.call_words import described

    return described([code], load_lab(REFERENCES["lab-03-bigram.py"]), "bigram_counts")


def test_combinations_is_described_where_it_makes_pairs_and_its_words_hold_in_torch():
    ids = torch.tensor([4, 1, 3, 3, 0])
    pairs = torch.combinations(ids)  # (n (n - 1) / 2, 2): each pair i < j, neighbours or not
    assert len(pairs) == len(ids) * (len(ids) - 1) // 2 and pairs[-1].tolist() == [3, 0]
    assert "n (n - 1) / 2 pairs" in _described("p = torch.combinations(ids)")["combinations"]
    assert "combinations" in _described("p = torch.combinations(ids, r=2)")


def test_combinations_is_not_described_where_its_words_would_not_hold():
    for code in ("p = torch.combinations(ids, 3)", "p = torch.combinations(ids, with_replacement=True)",
                 "p = itertools.combinations(ids, 2)"):
        assert "combinations" not in _described(code), code


def test_the_words_of_unique_and_index_put_hold_in_torch():
    values, counts = torch.unique(torch.tensor([5, 1, 5]), return_counts=True)
    assert values.tolist() == [1, 5] and counts.tolist() == [1, 2]  # no tally for the absent 0, 2, 3, 4
    rows = torch.zeros(3, 3).index_put_((torch.tensor([1]),), torch.tensor(1.0))
    assert rows.tolist() == [[0, 0, 0], [1, 1, 1], [0, 0, 0]]  # a tuple of one index: a whole row
    assert "never a 0 for one absent" in _described("v, c = torch.unique(x, return_counts=True)")["unique"]
    assert "a tuple of one picks whole rows" in _described("hot.index_put_((ids,), one)")["index_put_"]


# the heads' weights blended into the values with `*`, MATLAB's matrix product, in the multi-head
# function, written with split_heads from the lab
HEADS_BLENDED_ENTRYWISE = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf"))
    weights = scores.softmax(-1)
    return proj(merge_heads(weights * v)), weights
'''


def test_a_product_entry_by_entry_where_the_matrix_product_was_meant_is_said_as_star_for_at(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", HEADS_BLENDED_ENTRYWISE, "multi_head_attention")
    assert found and all("`weights * v` multiplies entry by entry" in h and "with `weights @ v` for `weights * v`" in h
                         for h in found)


def test_a_mended_products_sides_keep_their_brackets():
    from attention_by_hand.lab.api_mends import api_mends

    fdef = ast.parse("def f(a, b, c):\n    return (a + b) * c - a @ (b - c).mT").body[0]
    index = {id(n): i for i, n in enumerate(ast.walk(fdef))}
    said = {c.op: c.text for c in api_mends(fdef, index) if c.op in ("matmul", "elementwise")}
    assert said == {"matmul": "`(a + b) @ c` for `(a + b) * c`", "elementwise": "`a * (b - c)` for `a @ (b - c).mT`"}


def test_the_words_of_prod_and_batch_norm_hold_in_torch():
    import torch.nn.functional as F

    probs = torch.full((300,), 0.1)  # float32: 0.1 ** 300 is far below its smallest number
    assert float(probs.prod()) == 0.0 and torch.log(probs.prod()) == float("-inf") and torch.isfinite(probs.log().sum())
    x = torch.randn(6, 4) * 3 + 2
    trained = F.batch_norm(x, None, None, training=True)
    assert torch.allclose(trained.mean(dim=0), torch.zeros(4), atol=1e-5)  # each column, not each row
    assert not torch.allclose(trained.mean(dim=1), torch.zeros(6), atol=1e-3)
    given = F.batch_norm(x, torch.zeros(4), torch.ones(4))  # the default: the running mean and variance given
    assert torch.allclose(given, x / (1 + 1e-5) ** 0.5)
    words = _described("y = F.batch_norm(flat, None, None, training=True)")["batch_norm"]
    assert "each column gets mean 0 and variance 1" in words and "running mean and variance it is given" in words
    assert "multiply down past float32's smallest number to 0" in _described("p = torch.prod(picked)")["prod"]


# every axis joined by a bare flatten, NumPy's ravel, where the heads and their channels alone were
# to be joined; torch.flatten's function form, after a transpose
MERGED_TO_ONE_ROW = '''
def merge_heads(t):
    return torch.flatten(t.transpose(0, 1))
'''


def test_a_bare_flatten_is_said_as_joining_every_axis(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", MERGED_TO_ONE_ROW, "merge_heads")
    assert found and all(", given no axes, joins EVERY axis into one" in h for h in found)
    assert all("with `torch.flatten(t.transpose(0, 1), -2, -1)` for `torch.flatten(t.transpose(0, 1))`" in h for h in found)


# the weights divided by the running sum twice (once in the line that makes them, once more on the
# way out): each row scaled by a factor of its own, and the second division, a call, is what mends it
DIVIDED_TWICE = '''
def online_softmax(scores):
    top = scores[..., :1].clone()
    run = torch.ones_like(top)
    for j in range(1, scores.shape[-1]):
        col = scores[..., j:j + 1]
        nxt = torch.maximum(top, col)
        run = run * (top - nxt).exp() + (col - nxt).exp()
        top = nxt
    w = (scores - top).exp().div(run)
    return w.div(run)
'''


def test_a_call_taken_out_is_said_after_rows_scaled_by_factors_of_their_own(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", DIVIDED_TWICE, "online_softmax")
    assert found and all("times a factor of its own" in h and "with `w` for `w.div(run)`" in h for h in found)


def _setters(code: str, line: int) -> list[int]:
    from attention_by_hand.lab.line_calls import last_setters

    return last_setters(ast.parse(code).body[0], line)


LOOP_FILLS = '''
def f(ids, n):
    grid = torch.zeros(n, n)
    other = torch.zeros(n)
    for i, j in torch.combinations(ids, r=2):
        grid[i, j] = grid[i, j] + 1
    for k in range(n):
        other[k] += 1
    return grid
'''


def test_a_loop_that_fills_the_returned_tensor_counts_as_its_last_setter_by_its_header():
    assert _setters(LOOP_FILLS, 9) == [5]


def test_a_loop_that_fills_another_tensor_is_not_a_setter_of_the_returned_one():
    assert 7 not in _setters(LOOP_FILLS, 9)


# every pair of the sequence counted, neighbours or not, through combinations given its r by keyword
EVERY_PAIR_COUNTED = '''
def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    for first, second in torch.combinations(ids, r=2):
        table[first, second] = table[first, second] + 1
    return table
'''


def test_the_calls_of_the_loop_that_filled_a_wrong_output_are_described(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", EVERY_PAIR_COUNTED, "bigram_counts")
    assert found and any("`combinations`, which the reference does not call, gives every pair" in h for h in found)


# the weights' bracket closed after the division: the running sum divides the maximum alone, inside
# exp, where it was to divide exp's result; torch.exp's function form, a for loop
BRACKET_CLOSED_LATE = '''
def online_softmax(scores):
    top = torch.full(scores.shape[:-1], float("-inf"))
    total = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        nxt = torch.maximum(top, scores[..., j])
        total = total * torch.exp(top - nxt) + torch.exp(scores[..., j] - nxt)
        top = nxt
    return torch.exp(scores - top[..., None] / total[..., None])
'''


def test_a_bracket_closed_after_a_division_is_mended_by_closing_it_before(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", BRACKET_CLOSED_LATE, "online_softmax")
    assert found and all("divides `top[..., None]` alone by `total[..., None]`, inside the call" in h for h in found)
    assert all("with `torch.exp(scores - top[..., None]) / total[..., None]` for" in h for h in found)


def test_a_bracket_closed_late_is_tried_only_around_a_divided_or_multiplied_last_term():
    from attention_by_hand.lab.habit_mends import late_inside

    def late(code: str) -> bool:
        return late_inside(ast.parse(code, mode="eval").body) is not None

    assert late("torch.exp(a - b / c)") and late("(a + b.mul(c)).exp()") and late("math.log(a - b * c)")
    assert not late("torch.exp(a / c - b)") and not late("torch.exp((a - b) / c)") and not late("x.sum(a - b / c)")
