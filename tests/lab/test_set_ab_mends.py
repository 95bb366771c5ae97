"""Mistakes of the kinds the retired set AB held, each written here another way than set AB's file:
habits from other tools (a leading `:` of a batched table, a comma for a colon, enumerate's pair read
item first, `~` of an int, pandas' `inplace=`), Python's `max` for `min`, ones for the identity, a
full Jacobian for a gradient, a comparison returned for its number, a size mend that leaves one
tile of keys, and the words for errors torch raises itself."""

from __future__ import annotations

import ast

import torch
import torch.nn.functional as F

from attention_by_hand.lab.call_words import call_words
from attention_by_hand.lab.judging import hint_for_exception
from attention_by_hand.lab.habit_mends import habit_mends
from attention_by_hand.lab.loop_passes import cuts_to_one, loop_lines, passes
from attention_by_hand.lab.mend_edits import mend_edit
from attention_by_hand.lab.mutants import changes, definition
from labhelpers import REFERENCES, failed_hints, load_lab

# the table's slice written as for a (1, n_positions, d_model) table: it cuts the columns
COLUMNS_CUT_BY_A_LEADING_COLON = '''
def add_positions(x, table):
    n_tokens = x.size(-2)
    return table[:, :n_tokens] + x
'''


def test_a_leading_colon_on_a_table_without_a_batch_axis_is_named_and_nothing_else(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", COLUMNS_CUT_BY_A_LEADING_COLON, "add_positions")
    assert found and all("the leading `:` takes axis 0 whole" in h and "`table[:n_tokens]`" in h for h in found)
    assert not any("table[0]" in h or "rows met" in h for h in found)


# both axes cut to T: the broadcast fails on the last axis, the columns
BOTH_AXES_CUT = '''
def add_positions(x, table):
    T = x.shape[-2]
    return x + table[:T, :T]
'''


def test_a_size_error_on_the_last_axis_is_said_of_the_columns(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", BOTH_AXES_CUT, "add_positions")
    assert found and all("entries on its last axis, where x has d_model" in h for h in found)
    assert not any("rows met" in h for h in found)


def test_an_error_matched_by_its_words_alone_is_not_named_where_a_square_input_runs_otherwise(tmp_path):
    # `x + table[0][:T]` raises the same words on the checks' inputs; on an x as wide as long both
    # run, and give other numbers
    found = failed_hints(tmp_path, "lab-07-positions.py", BOTH_AXES_CUT, "add_positions")
    assert found and not any("table[0]" in h for h in found)


# a comma where the range's colon was meant: two indices of one axis each
COMMA_FOR_A_COLON = '''
def embed_at(tokens, start, token_embedding, position_embedding):
    where = torch.arange(start + tokens.shape[-1])[start, start + tokens.shape[-1]]
    return token_embedding(tokens) + position_embedding(where)
'''


def test_a_comma_for_a_colon_in_an_index_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-08-kv-cache.py", COMMA_FOR_A_COLON, "embed_at")
    assert found and all("a comma puts its two sides on two axes" in h for h in found)
    assert all("`start : start + tokens.shape[-1]`" in h for h in found)


# enumerate's pair read item first: `col` is the index, read as the column
ENUMERATE_READ_ITEM_FIRST = '''
def online_softmax(scores):
    top = scores[..., :1] * 0 - math.inf
    mass = torch.zeros_like(top)
    for col, i in enumerate(scores.split(1, dim=-1)):
        higher = torch.maximum(top, col)
        mass = mass * torch.exp(top - higher) + torch.exp(col - higher)
        top = higher
    return torch.exp(scores - top) / mass
'''


def test_enumerates_pair_read_item_first_is_named_as_that(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ENUMERATE_READ_ITEM_FIRST, "online_softmax")
    assert found and all("enumerate gives (index, item), so `col` is the index and `i` the item" in h for h in found)


# `~head` on an int is -head - 1: one head, counted from the end
INVERTED_INT_AS_ALL_BUT = '''
def ablate_head(scores, values, head):
    per_head = (torch.softmax(scores, dim=-1) @ values).transpose(0, 1)
    return per_head[~head].sum(dim=0)
'''


def test_tilde_of_an_int_taken_for_every_other_index_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", INVERTED_INT_AS_ALL_BUT, "ablate_head")
    assert found and all("on an int, `~` is Python's bitwise not" in h for h in found)
    assert all("if i != head]` for `~head`" in h for h in found)


# pandas' flag on a tensor method: the call raises; it is not said to "change nothing"
PANDAS_INPLACE = '''
def attention_weights(x, query, key):
    s = query(x) @ key(x).mT / key.out_features ** 0.5
    n = s.shape[-1]
    s.masked_fill(torch.ones(n, n).triu(1).bool(), -1e30, inplace=True)
    return torch.softmax(s, dim=-1)
'''


def test_pandas_inplace_flag_is_said_as_no_flag_of_torchs(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", PANDAS_INPLACE, "attention_weights")
    assert found and all("takes no `inplace=`" in h and "`masked_fill_` changes the tensor itself" in h for h in found)
    assert not any("changes nothing" in h for h in found)


# Python's max where the last tile's width needs min: the tile runs past the keys
BUILTIN_MAX_FOR_MIN = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    c = q.shape[-1] ** -0.5
    outs, lses = [], []
    for r0 in range(0, n_q, block):
        qb = q.narrow(-2, r0, min(block, n_q - r0))
        m = torch.full(qb.shape[:-1], -math.inf)
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for c0 in range(0, n_k, block):
            width = max(block, n_k - c0)
            s = qb @ k.narrow(-2, c0, width).transpose(-1, -2) * c
            if causal:
                rows = torch.arange(r0, r0 + qb.shape[-2])[:, None]
                s = s.masked_fill(torch.arange(c0, c0 + width) > rows, -math.inf)
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            l = l * torch.exp(m - m_new) + p.sum(-1)
            acc = acc * torch.exp(m - m_new)[..., None] + p @ v.narrow(-2, c0, width)
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_pythons_max_for_min_is_named_as_the_function_swapped(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", BUILTIN_MAX_FOR_MIN, "tiled_attention")
    assert found and all("`min(...)` for `max(...)`" in h for h in found)
    assert not any("the wrong variable" in h for h in found)


# the indicator 1[i = j] built as a table of ones
ONES_FOR_THE_IDENTITY = '''
def softmax_backward(p, dp):
    n = p.shape[-1]
    indicator = torch.ones(n, n, dtype=p.dtype)
    jac = p.unsqueeze(-1) * indicator - p.unsqueeze(-1) * p.unsqueeze(-2)
    return (jac @ dp.unsqueeze(-1)).squeeze(-1)
'''


def test_ones_where_the_identity_belongs_is_named_as_eye(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", ONES_FOR_THE_IDENTITY, "softmax_backward")
    assert found and all("`eye(...)` for `ones(...)`" in h and "eye is the identity" in h for h in found)


def test_squeeze_given_its_axis_is_not_described_as_dropping_every_axis():
    lab = load_lab(REFERENCES["lab-10-gradients.py"])
    assert "squeeze" not in (call_words(["return (a @ b).squeeze(-1)"], lab, "softmax_backward") or "")
    assert "EVERY axis of size 1" in (call_words(["return (a @ b).squeeze()"], lab, "softmax_backward") or "")


# a full Jacobian of the output by each input, where its product with d_out was meant
JACOBIANS_FOR_GRADIENTS = '''
def attention_backward(q, k, v, d_out, causal):
    def out_of(q, k, v):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            T = s.shape[-1]
            s = s.masked_fill(torch.ones(T, T).tril() == 0, -math.inf)
        return torch.softmax(s, dim=-1) @ v
    return torch.autograd.functional.jacobian(out_of, (q, k, v))
'''


def test_a_full_jacobian_returned_for_a_gradient_is_said_by_its_shape(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", JACOBIANS_FOR_GRADIENTS, "attention_backward")
    assert found and all("followed by the expected" in h and "a full Jacobian" in h for h in found)


# the head's score compared with a cut-off, where the score itself is the answer
COMPARISON_RETURNED = '''
def first_token_score(pattern):
    on_start = pattern[:, :, 1:, 0]
    return on_start.mean(dim=2).mean(dim=0) >= 0.5
'''


def test_a_comparison_returned_for_a_number_is_said_and_its_input_still_reaches_it(tmp_path):
    found = failed_hints(tmp_path, "lab-11-induction-heads.py", COMPARISON_RETURNED, "first_token_score")
    assert found and all("yours returns True and False (torch.bool)" in h for h in found)
    assert not any("never reaches" in h for h in found)


# the keys cut into as many pieces as there are tiles, pieces as equal as tensor_split makes them:
# with causal, the pieces no longer start where the mask places the tiles
KEYS_CUT_INTO_EQUAL_PIECES = '''
def tiled_attention(q, k, v, block, causal):
    n_q, n_k = q.shape[-2], k.shape[-2]
    c = q.shape[-1] ** -0.5
    pieces = torch.tensor_split(torch.arange(n_k), -(-n_k // block))
    outs, lses = [], []
    for r0 in range(0, n_q, block):
        qb = q[..., r0:r0 + block, :]
        m = torch.full(qb.shape[:-1], -math.inf)
        l = torch.zeros(qb.shape[:-1])
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1])
        for t, cols in enumerate(pieces):
            s = qb @ k[..., cols, :].transpose(-1, -2) * c
            if causal:
                first = t * block
                ahead = torch.arange(first, first + len(cols)) > torch.arange(r0, r0 + qb.shape[-2])[:, None]
                s = s.masked_fill(ahead, -math.inf)
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            p = torch.nan_to_num(p)
            l = l * torch.exp(m - m_new).nan_to_num() + p.sum(-1)
            acc = acc * torch.exp(m - m_new).nan_to_num()[..., None] + p @ v[..., cols, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''


def test_a_size_mend_that_leaves_one_tile_of_keys_is_not_offered(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", KEYS_CUT_INTO_EQUAL_PIECES, "tiled_attention")
    assert found
    assert not any("the wrong size" in h or "the wrong axis" in h or "gives the reference's values" in h for h in found)


# one loop, its line the third of the text; a mend that keeps its line numbers changes only `{cut}`
SUMMED = "def summed(x):\n    total = x * 0\n    for row in x{cut}:\n        total = total + row\n    return total\n"
LOOP = {3: (3, 4)}  # the loop's first line: (its header's last line, its last line)


def _compiled(text: str, name: str):
    space: dict = {}
    exec(compile(text, f"<{name}>", "exec"), space)  # noqa: S102 - the test's own text
    return space[name]


def test_passes_counts_a_loops_line_once_per_pass_and_once_at_its_end():
    assert passes(_compiled(SUMMED.format(cut=""), "summed"), (torch.ones(3, 2),), LOOP) == {3: 4}


NESTED = ("def nested(x):\n    total = 0\n    for a in range(2):\n        for b in x:\n            total = total + b\n"
          "    return total\n")


def test_an_inner_loop_is_counted_per_entry_of_it():
    assert passes(_compiled(NESTED, "nested"), (torch.ones(3),), {3: (3, 5), 4: (4, 5)}) == {3: 3, 4: 4}


# the header over two lines: the loop's entry is met once, not again at its second line
SPLIT_HEADER = ("def split(x):\n    total = 0\n    for k, row in enumerate(\n            x):\n        total = total + row\n"
                "    return total\n")


def test_a_header_over_two_lines_counts_one_entry(tmp_path):
    function = _compiled(SPLIT_HEADER, "split")
    found = loop_lines(ast.parse(SPLIT_HEADER).body[0])
    assert found == {3: (4, 5)} and passes(function, (torch.ones(3),), found) == {3: 4}


def test_a_loop_cut_from_three_passes_to_one_is_told_where_the_reference_loops_too():
    before = [passes(_compiled(SUMMED.format(cut=""), "summed"), (torch.ones(3, 2),), LOOP)]
    mended = _compiled(SUMMED.format(cut="[:1]"), "summed")
    assert cuts_to_one(mended, [(torch.ones(3, 2),)], LOOP, before, [True]) is True


def test_a_loop_cut_to_one_pass_where_the_reference_loops_once_is_the_fix():
    before = [passes(_compiled(SUMMED.format(cut=""), "summed"), (torch.ones(3, 2),), LOOP)]
    mended = _compiled(SUMMED.format(cut="[:1]"), "summed")
    assert cuts_to_one(mended, [(torch.ones(3, 2),)], LOOP, before, [False]) is False


def test_a_loop_cut_from_three_passes_to_two_is_not():
    before = [passes(_compiled(SUMMED.format(cut=""), "summed"), (torch.ones(3, 2),), LOOP)]
    mended = _compiled(SUMMED.format(cut="[:2]"), "summed")
    assert cuts_to_one(mended, [(torch.ones(3, 2),)], LOOP, before, [True]) is False


def _habits(code: str) -> list[str]:
    fdef = ast.parse(code).body[0]
    return [c.op for c in habit_mends(fdef, {id(n): i for i, n in enumerate(ast.walk(fdef))})]


def test_a_new_axis_after_a_leading_colon_is_no_leading_colon_habit():
    assert "lead_colon" not in _habits("def f(p):\n    return p[:, None]\n")
    assert "lead_colon" in _habits("def f(p):\n    return p[:, 2:]\n")


def test_every_index_but_one_keeps_a_head_named_i():
    fdef = ast.parse("def f(x, i):\n    return x[:, ~i]\n").body[0]
    nodes = list(ast.walk(fdef))
    change = next(c for c in habit_mends(fdef, {id(n): k for k, n in enumerate(nodes)}) if c.op == "all_but")
    made = ast.unparse(mend_edit(nodes[change.index], change))
    assert made == "x[:, [j for j in range(x.shape[1]) if j != i]]"


def _raised(make) -> str:
    try:
        make()
    except Exception as error:  # noqa: BLE001 - the error torch raises is the input here
        return hint_for_exception(type(error).__name__, str(error))
    raise AssertionError("no error")


def test_a_tensor_given_where_a_dtype_belongs_is_said_so():
    said = _raised(lambda: torch.iinfo(torch.zeros(2, dtype=torch.int32)))
    assert "takes a dtype, not a tensor" in said and "dtype this call does not take" not in said


def test_a_layer_given_where_its_output_belongs_is_said_without_naming_another_layer():
    said = _raised(lambda: F.linear(torch.nn.LayerNorm(3), torch.ones(2, 3)))
    assert "a layer (LayerNorm) itself where its result was meant" in said and "ln1" not in said


def test_numpys_identity_is_said_as_torchs_eye():
    assert "`torch.eye(n)`" in _raised(lambda: getattr(torch, "identity")(3))


def test_numpys_tri_is_said_as_a_lower_triangle_of_ones():
    assert "`torch.tril(torch.ones(n, n))`" in _raised(lambda: getattr(torch, "tri")(3))


def test_numpys_average_is_said_as_a_mean():
    assert "`x.mean(dim=...)`" in _raised(lambda: getattr(torch, "average")(torch.ones(3)))


def test_numpys_array_split_is_said_as_tensor_split():
    assert "`torch.tensor_split(x, n, dim=...)`" in _raised(lambda: getattr(torch, "array_split")(torch.ones(4), 2))


def test_tensorflows_scatter_add_is_said_as_index_put_with_accumulate():
    said = _raised(lambda: getattr(torch, "tensor_scatter_nd_add")(torch.ones(3), [[0]], [1.0]))
    assert "accumulate=True" in said


def test_flash_attns_causal_keyword_is_said_as_is_causal():
    q = torch.ones(2, 3)
    assert "`is_causal`" in _raised(lambda: F.scaled_dot_product_attention(q, q, q, causal=True))


def test_need_weights_is_said_as_sdpa_returning_the_output_alone():
    q = torch.ones(2, 3)
    assert "returns the output alone" in _raised(lambda: F.scaled_dot_product_attention(q, q, q, need_weights=True))


# the positions made a batch of one, as position_ids are in many model codes: an unbatched
# sequence comes back with a leading axis of size 1
POSITIONS_AS_A_BATCH_OF_ONE = '''
def embed(tokens, token_embedding, position_embedding):
    return position_embedding(torch.arange(tokens.shape[-1]).unsqueeze(0)) + token_embedding(tokens)
'''


def test_an_extra_axis_of_size_one_is_said_with_the_call_that_adds_it(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", POSITIONS_AS_A_BATCH_OF_ONE, "embed")
    assert found and all("an extra leading axis of size 1" in h for h in found)
    assert all("`torch.arange(tokens.shape[-1])` for `torch.arange(tokens.shape[-1]).unsqueeze(0)`" in h for h in found)


def test_a_distributions_entropy_is_said_to_ignore_which_outcome_came():
    lab = load_lab(REFERENCES["lab-03-bigram.py"])
    said = call_words(["return Categorical(logits=rows).entropy().sum() / len(ids)"], lab, "average_nll") or ""
    assert "never looks at which outcome came" in said


def test_pythons_min_with_a_number_is_not_renamed_max(tmp_path):
    path = tmp_path / "two_mins.py"
    path.write_text("def f(a, b):\n    return min(a, 8) + min(a, b)\n", encoding="utf-8")
    module = load_lab(path)
    nodes = list(ast.walk(definition(module, "f")))
    renamed = [ast.unparse(nodes[c.index]) for c in changes(module, "f") if c.op == "rename"]
    assert renamed == ["min(a, b)"]
