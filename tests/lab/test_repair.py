"""A mistake named by its mend (repair.py): one change of the learner's own code that makes its
function right on every input tried, and when none may be said."""

from __future__ import annotations

import ast
import importlib.util

import pytest
import torch

from attention_by_hand.lab.mend_words import _brackets, _one_axis_cut, mend_said, mistake_words
from attention_by_hand.lab.mutant_edits import Change
from attention_by_hand.lab.repair import repair
from attention_by_hand.lab.registry import LABS
from labhelpers import REFERENCES, check_untimed, failed_hints, load_lab, patch_lab

REFERENCE = '''
import torch


def hidden(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def shown(T):
    return ~hidden(T)


def tripled(x):
    return x * 2.0


def spread(x):
    return x.sum(dim=0) / (x.shape[0] - 1)
'''

HEADER = "import torch\n\n\n"

LEARNER = {
    "hidden": '''
def hidden(T):
    mask = torch.zeros(T, T, dtype=torch.bool)
    for i in range(1, T):
        mask[i, i + 1:] = True
    return mask
''',
    "hidden_right": '''
def hidden(T):
    mask = torch.zeros(T, T, dtype=torch.bool)
    for i in range(T):
        mask[i, i + 1:] = True
    return mask
''',
    "hidden_fixed": '''
def hidden(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=0 if T < 5 else 2)
''',
    "shown": '''
def hidden(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=2)


def shown(T):
    return ~hidden(T)
''',
    "tripled": '''
def tripled(x):
    return x / 2.0
''',
    "tripled_double": '''
def tripled(x):
    return x.double() / 2.0
''',
    "tripled_half": '''
def tripled(x):
    return x.half() / 2.0
''',
    "spread": '''
def spread(x):
    n = x.shape[0]
    total = torch.zeros(x.shape[1])
    for i in range(n):
        total = total + x[i]
    return total / n
''',
}


def _load(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mend(tmp_path, learner, function, inputs, checked=None):
    """The mend of `function` in the learner file LEARNER[learner]."""
    module = _load(tmp_path, learner, HEADER + LEARNER[learner])  # one file per text: its code is read once
    return repair(module, _load(tmp_path, "reference", REFERENCE), function, inputs, checked or {function})


def _line(learner, code):
    return next(i for i, line in enumerate((HEADER + LEARNER[learner]).splitlines(), start=1) if line.strip() == code)


def test_a_loop_that_starts_one_row_late_is_mended_by_its_start_quoted_at_its_line(tmp_path):
    found = _mend(tmp_path, "hidden", "hidden", [(1,), (4,), (6,)])
    assert found is not None
    assert found.line == _line("hidden", "for i in range(1, T):")
    assert "`range(0, T)` for `range(1, T)`" in found.text


def test_a_right_function_has_nothing_to_mend(tmp_path):
    assert _mend(tmp_path, "hidden_right", "hidden", [(1,), (4,)]) is None


def test_a_change_that_mends_one_input_only_is_not_said(tmp_path):
    # diagonal 0 below 5 tokens, 2 from there: each is mended alone, both by no one change
    assert _mend(tmp_path, "hidden_fixed", "hidden", [(4,)]) is not None
    assert _mend(tmp_path, "hidden_fixed", "hidden", [(4,), (6,)]) is None


def test_a_mend_must_give_the_reference_dtype_too(tmp_path):
    x = torch.arange(6.0).reshape(2, 3)
    assert "`x * 2.0` for `x / 2.0`" in _mend(tmp_path, "tripled", "tripled", [(x,)]).text
    # the same numbers in float16 are not the reference's float32 output: the judges name the cast
    assert _mend(tmp_path, "tripled_half", "tripled", [(x,)]) is None


def test_a_mend_giving_a_float_of_more_digits_counts_as_right(tmp_path):
    # float64 where the reference makes float32: the judges accept it, so the mend makes every check pass
    x = torch.arange(6.0).reshape(2, 3)
    assert "`x.double() * 2.0` for `x.double() / 2.0`" in _mend(tmp_path, "tripled_double", "tripled", [(x,)]).text


def test_a_loop_variable_left_at_its_last_value_is_never_said_as_the_mend(tmp_path):
    # `total / i` is right (i ends at n - 1), but only because the loop left i there; the count
    # one less is the mend
    x = torch.arange(12.0).reshape(4, 3)
    found = _mend(tmp_path, "spread", "spread", [(x,), (x[:3],)])
    assert found is not None and found.text == "`n - 1` for `n` in `return ...`"


def test_a_checked_helper_is_not_changed_to_mend_its_caller(tmp_path):
    # shown() is right; hidden(), which it calls, is wrong (diagonal=2) and has checks of its own
    assert _mend(tmp_path, "shown", "shown", [(4,)], checked={"shown", "hidden"}) is None
    assert _mend(tmp_path, "shown", "shown", [(4,)], checked={"shown"}) is not None


LATE_ROWS = '''
def causal_mask(T: int) -> torch.Tensor:
    out = torch.zeros(T, T, dtype=torch.bool)
    for row in range(1, T):
        out[row, row + 1:] = True
    return out
'''


def test_the_check_says_the_mend_where_no_change_of_the_reference_explains_the_mistake(tmp_path):
    patch = LATE_ROWS
    hints = failed_hints(tmp_path, "lab-04-attention.py", patch, "causal_mask")
    line = patch_lab(REFERENCES["lab-04-attention.py"].read_text(encoding="utf-8"), patch).splitlines().index(
        "    for row in range(1, T):") + 1
    assert hints and all(f"(line {line}): with `range(0, T)` for `range(1, T)`" in h for h in hints)


MORE = {
    "last_head": '''
def heads(x, n):
    out = []
    for h in range(n - 1):
        out.append(x[h])
    return torch.stack(out)
''',
    "late_row": '''
def hidden(T):
    mask = torch.zeros(T, T, dtype=torch.bool)
    for i in range(1, T):
        mask[i, i + 1:] = True
    return mask
''',
    "short_slice": '''
def first_two(x):
    return x[:, 0:2 - 1]
''',
    "at_least": '''
def one_hot(ids, V):
    return (ids[:, None] >= torch.arange(V)[None, :]).float()
''',
    "untransposed": '''
def gram(a, b):
    return a @ b
''',
}

MORE_REFERENCE = '''
import torch


def heads(x, n):
    return x[:n]


def hidden(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def first_two(x):
    return x[:, :2]


def one_hot(ids, V):
    return (ids[:, None] == torch.arange(V)[None, :]).float()


def gram(a, b):
    return a @ b.T
'''


def _said(tmp_path, learner, function, inputs):
    module = _load(tmp_path, learner, HEADER + MORE[learner])
    found = repair(module, _load(tmp_path, "more_reference", MORE_REFERENCE), function, inputs, {function})
    assert found is not None
    return found.words


def test_a_loop_that_stops_one_step_early_is_said_to_leave_out_its_last_step(tmp_path):
    x = torch.arange(12.0).reshape(4, 3)
    assert _said(tmp_path, "last_head", "heads", [(x, 3), (x, 4)]).startswith("off by one: the loop stops one step early")


def test_a_loop_that_starts_at_1_is_said_to_leave_out_its_first_step(tmp_path):
    assert _said(tmp_path, "late_row", "hidden", [(3,), (5,)]).startswith("off by one: the loop starts one step late")


def test_a_slice_that_ends_one_early_is_said_to_leave_out_its_last_entry(tmp_path):
    x = torch.arange(12.0).reshape(3, 4)
    assert _said(tmp_path, "short_slice", "first_two", [(x,)]).startswith("off by one: the slice ends one place early")


def test_a_wrong_comparison_is_said_in_words(tmp_path):
    words = _said(tmp_path, "at_least", "one_hot", [(torch.tensor([0, 2, 1]), 4)])
    assert words == "the wrong comparison: `>=` (greater than or equal) where `==` (equal) is needed"


def test_a_missing_transpose_is_said_with_what_it_transposes(tmp_path):
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
    assert _said(tmp_path, "untransposed", "gram", [(a, b), (a[:2], b[:2])]) == "`b` needs a transpose"


def test_a_power_for_a_product_is_said_in_words(tmp_path):
    learner = '''
def scaled(x, s):
    return x ** s
'''
    reference = '''
def scaled(x, s):
    return x * s
'''
    module = _load(tmp_path, "power", HEADER + learner)
    found = repair(module, _load(tmp_path, "power_reference", reference), "scaled", [(torch.tensor([1.5, 2.0]), 3.0)], {"scaled"})
    assert found.words == "the wrong operation: a power (`**`) where a product (`*`) is needed"


def test_a_square_for_the_value_itself_is_a_power_not_an_off_by_one(tmp_path):
    learner = '''
def penalty(d, slope):
    return -slope * d ** 2
'''
    reference = '''
def penalty(d, slope):
    return -slope * d
'''
    module = _load(tmp_path, "squared", HEADER + learner)
    found = repair(module, _load(tmp_path, "squared_reference", reference), "penalty",
                   [(torch.arange(4.0), 0.5), (torch.arange(3.0) + 2, 0.25)], {"penalty"})
    assert found.words == "squared where the value itself is needed"


def test_an_index_the_mend_removes_is_said_as_a_part_for_the_whole(tmp_path):
    learner = '''
def blended(w, v):
    out = w @ v
    return out[-1]
'''
    reference = '''
def blended(w, v):
    return w @ v
'''
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.softmax(torch.randn(t, t, generator=g), dim=-1), torch.randn(t, 3, generator=g)) for t in (2, 4)]
    module = _load(tmp_path, "last_row", HEADER + learner)
    found = repair(module, _load(tmp_path, "last_row_reference", reference), "blended", inputs, {"blended"})
    assert found.words == "only the last entry along the first axis, `out[-1]`, where all of `out` is needed"


def test_an_index_that_adds_an_axis_is_said_as_an_axis_added_not_a_part(tmp_path):
    learner = '''
def blended(w, v):
    out = w @ v
    return out[None]
'''
    reference = '''
def blended(w, v):
    return w @ v
'''
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.softmax(torch.randn(t, t, generator=g), dim=-1), torch.randn(t, 3, generator=g)) for t in (2, 4)]
    module = _load(tmp_path, "unsqueezed", HEADER + learner)
    found = repair(module, _load(tmp_path, "unsqueezed_reference", reference), "blended", inputs, {"blended"})
    assert found is not None and found.words == ("an axis of size 1 added, `out[None]`, where `out` is needed as it is: "
                                                 "each `None` in an index adds one")


def test_a_square_root_where_the_value_itself_is_needed_is_a_power_not_a_factor(tmp_path):
    learner = '''
def spread(d):
    return d ** 0.5
'''
    reference = '''
def spread(d):
    return d
'''
    module = _load(tmp_path, "rooted", HEADER + learner)
    found = repair(module, _load(tmp_path, "rooted_reference", reference), "spread", [(torch.arange(1.0, 5.0),)], {"spread"})
    assert found.words == "a square root too many"


def test_a_residual_added_by_both_its_plus_equals_and_its_sum_is_said_added_twice(tmp_path):
    learner = '''
def residual(x):
    x += x + torch.tanh(x)
    return x
'''
    reference = '''
def residual(x):
    return x + torch.tanh(x)
'''
    module = _load(tmp_path, "twice", HEADER + learner)
    found = repair(module, _load(tmp_path, "twice_reference", HEADER + reference), "residual", [(torch.tensor([0.5, -1.0]),)], {"residual"})
    assert found.words == "`x` added twice"


EXTRA_REFERENCE = '''
import torch


def weights(s):
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    return e / e.sum(dim=-1, keepdim=True)


def first_weight(p):
    return p[..., 0]


def pooled(p, v):
    return (p @ v) / p.sum(dim=-1, keepdim=True)


def tile_maxima(x, block):
    return torch.stack([x[j:j + block].amax(dim=0) for j in range(0, x.shape[0], block)])


def sums(a, b):
    return a.sum(dim=0), b.sum(dim=0)


def turned(q, k, v):
    q, k = torch.tanh(q), torch.tanh(k)
    return q @ k.T + v.sum()


def normalised(s):
    return torch.exp(s) / torch.exp(s).sum(dim=-1, keepdim=True)


def mean_after(x, start):
    return x[start + 1:].sum(dim=0) / (x.shape[0] - start - 1)


def future(T):
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    return j > i


def before(p, q):
    return q - p


def total(x, n):
    return x.sum(dim=0)


def kept(p):
    return p[:, 1]


def count(n):
    return torch.arange(n)


def blended(s, v):
    return torch.softmax(s, dim=-1) @ v


def row_totals(x):
    return x.sum(dim=-1)


def doubled(x):
    return x * 2


def centred(x):
    return x - x.mean(dim=-1, keepdim=True)


def previous(x, i):
    return x[i - 1]


def total_before_negative(x):
    total = x[0] * 0
    for v in x:
        if v < 0:
            break
        total = total + v
    return total


def running_total(x):
    return x.cumsum(0)


def pattern(w):
    return torch.softmax(w, dim=-1)


def stretched(x, by=2.0):
    return x * by


def both(q, k):
    return stretched(q) - stretched(k).flip(0)


def heads(t, n):
    return torch.stack(t.chunk(n, dim=-1))


def first(x):
    return x[..., 0]


def carried(acc, r, x):
    return r * acc + x


def batched(w, v):
    return w @ v


def spread(x, n):
    return x / (x.shape[-1] // n) ** 0.5


def both_masked(s, t, keep):
    return torch.softmax(s.masked_fill(~keep, float("-inf")), dim=-1) + torch.softmax(t.masked_fill(~keep, float("-inf")), dim=-1)


def shifted(x, p):
    return x + 1


def without(x, i):
    return torch.cat([x[:i], x[i + 1:]]).sum(dim=0)


def appended(values, v):
    return torch.cat([values, v], dim=0)


def scored(q, k):
    return q @ k.transpose(-2, -1)


def row_dots(a, b):
    return (a * b).sum(dim=-1)


def pieces(t, n):
    return torch.stack(t.chunk(n, dim=-1))


def tempered(s):
    return torch.softmax(s, dim=-1)


def grouped(T):
    return torch.arange(T)


def lifted(s):
    return torch.exp(s - s.max(dim=-1, keepdim=True).values)


def rectified(x, w):
    return torch.relu(x @ w)


def placed(x, start):
    return x * (torch.arange(x.shape[0]) + start)[:, None]


def dot(a, b):
    return (a * b).sum()


def normed(c):
    return c / c.sum(dim=-1, keepdim=True)


def grown(cache, k, v):
    keys, values = cache
    return torch.cat([keys, k], dim=2), torch.cat([values, v], dim=2)


def rows(x):
    return x.sum(dim=0)


def tiles_total(x, block):
    return x.sum(dim=0)


def positions(T):
    return torch.arange(T)


def summed(a, b):
    return a + b


def branches(x, ln1, attn, ln2, mlp):
    x = x + attn(ln1(x))
    return x + mlp(ln2(x))


def key_blocks(k, block):
    out = []
    for j0 in range(0, k.shape[0], block):
        j1 = min(j0 + block, k.shape[0])
        for i0 in range(0, k.shape[0], block):
            out.append(k[j0:j1].sum(dim=0) * (i0 + 1))
    return torch.stack(out)

def block_sums(x, block):
    out = torch.zeros(x.shape[0], x.shape[1])
    for i in range(0, x.shape[0], block):
        out[i:i + block] += x[i:i + block] * 2
    return out


def normed_rows(x):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + 1e-5)


def pair_counts(ids, V):
    counts = torch.zeros(V, V)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] += 1
    return counts


def scaled_blocks(x, block, scale):
    out = []
    for j in range(0, x.shape[0], block):
        s = x[j:j + block] * scale
        if j == 0:
            s = s - 1
        out.append(s)
    return torch.cat(out)


def without_head(w, v, head):
    w = w.clone()
    w[head] = 0.0
    return (w @ v).sum(dim=0)


def turns(x, theta, p):
    return x * torch.cos(theta * p) + torch.sin(theta * p)


def chunk_means(x, size):
    n = -(-x.shape[0] // size)
    return torch.stack([x[c * size:(c + 1) * size].mean(dim=0) for c in range(n)])


def row_total(x):
    total = torch.zeros(x.shape[1:])
    for i in range(x.shape[0]):
        total = total + x[i]
    return total


def slowed(p, base, k, d):
    return p / base ** (k / d)


def cooled(s, c):
    return torch.softmax(s / c, dim=-1)


def steps_of(x):
    return torch.arange(x.shape[-2]) * 2


def neighbour_sums(x):
    return x[:-1] + x[1:]


def marks(ids, n):
    return torch.nn.functional.one_hot(ids, n).float()


def twin_sums(q, v):
    aq, av = torch.zeros_like(q), torch.zeros_like(v)
    aq += q.cumsum(0)
    av += v.cumsum(0)
    return aq, av
'''

EXTRA = {
    "chunks_rounded_down": '''
def chunk_means(x, size):
    means = []
    for c in range(x.shape[0] // size):
        means.append(x[c * size:(c + 1) * size].mean(dim=0))
    return torch.stack(means)
''',
    "centred_by_first_row": '''
def centred(x):
    return x - x.mean(dim=-1, keepdim=True)[0]
''',
    "total_from_first_row": '''
def row_total(x):
    total = x[0].clone()
    for i in range(x.shape[0]):
        total += x[i]
    return total
''',
    "total_from_ones": '''
def row_total(x):
    total = torch.ones_like(x[0])
    for row in x:
        total = total + row
    return total
''',
    "slowed_outside_the_power": '''
def slowed(p, base, k, d):
    return p / base ** k / d
''',
    "cooled_after": '''
def cooled(s, c):
    return torch.softmax(s, dim=-1) / c
''',
    "steps_along_the_first_axis": '''
def steps_of(x):
    return torch.arange(x.shape[0]) * 2
''',
    "marks_by_rows": '''
def marks(ids, n):
    m = torch.zeros(len(ids), n)
    m[ids] = 1.0
    return m
''',
    "sums_of_pairs_apart": '''
def neighbour_sums(x):
    return x.view(-1, 2).sum(dim=1)
''',
    "twins_made_alike": '''
def twin_sums(q, v):
    aq, av = torch.zeros_like(q), torch.zeros_like(q)
    aq += q.cumsum(0)
    av += v.cumsum(0)
    return aq, av
''',
    "powers_for_turns": '''
def turns(x, theta, p):
    return x * torch.cos(theta) ** p + torch.sin(theta) ** p
''',
    "identity_head": '''
def without_head(w, v, head):
    w = w.clone()
    w[head] = torch.eye(w.shape[-1])
    return (w @ v).sum(dim=0)
''',
    "rebound_slice": '''
def block_sums(x, block):
    out = torch.zeros(x.shape[0], x.shape[1])
    for i in range(0, x.shape[0], block):
        rows = out[i:i + block]
        rows = rows + x[i:i + block] * 2
    return out
''',
    "two_axes_normed": '''
def normed_rows(x):
    mean = x.mean(dim=(-2, -1), keepdim=True)
    var = x.var(dim=(-2, -1), keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + 1e-5)
''',
    "counted_by_place": '''
def pair_counts(ids, V):
    counts = torch.zeros(V, V)
    for i in range(len(ids) - 1):
        counts[ids[i], ids[i + 1]] += i
    return counts
''',
    "scaled_on_first": '''
def scaled_blocks(x, block, scale):
    out = []
    for j in range(0, x.shape[0], block):
        s = x[j:j + block]
        if j == 0:
            s = s * scale
            s = s - 1
        out.append(s)
    return torch.cat(out)
''',
    "pooled_by_columns": '''
def pooled(p, v):
    total = p.sum(dim=0).unsqueeze(-1)
    return (p @ v) / total
''',
    "slice_end_clamped": '''
def tile_maxima(x, block):
    T = x.shape[0]
    centre = x.mean(dim=0)
    spread = (x - centre).abs().mean(dim=0)
    top = x.amax(dim=0) - x.amin(dim=0)
    out = []
    for j in range(0, T, block):
        e = min(j + block, T - 1)
        out.append(x[j:e].amax(dim=0))
    return torch.stack(out) + 0.0 * (centre + spread + top).sum()
''',
    "strided": '''
def future(T):
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    ahead = j > i
    off_stride = (i - j >= 2) & ((i - j) % 2 != 0)
    return ahead | off_stride
''',
    "share_of_past": '''
def first_weight(p):
    seen = torch.tril(p).sum(dim=-1)
    return p[..., 0] / seen
''',
    "over_all_rows": '''
def mean_after(x, start):
    T = x.shape[0]
    return x[start + 1:].sum(dim=0) / T
''',
    "started_empty": '''
def sums(a, b):
    ta, tb = torch.empty_like(a[0]), torch.empty_like(b[0])
    for row in a:
        ta += row
    for row in b:
        tb += row
    return ta, tb
''',
    "rotated_values": '''
def turned(q, k, v):
    q, v = torch.tanh(q), torch.tanh(v)
    return q @ k.T + v.sum()
''',
    "counted_by_next": '''
def pair_counts(ids, V):
    counts = torch.zeros(V, V)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        counts[a, b] += b
    return counts
''',
    "normalised_twice": '''
def weights(s):
    s = s - s.max(dim=-1, keepdim=True).values
    s.mul_(2.0)
    e = torch.exp(s)
    return e / e.sum(dim=-1, keepdim=True)
''',
    "by_lse": '''
def normalised(s):
    return torch.exp(s) / torch.logsumexp(s, dim=-1, keepdim=True)
''',
    "rounded": '''
def weights(s):
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    w = e / e.sum(dim=-1, keepdim=True)
    return torch.round(w, decimals=4)
''',
    "windowed": '''
def future(T):
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    return (j > i) | (i - j >= 3)
''',
    "rescaled": '''
def total(x, n):
    return x.sum(dim=0) * n / (n - 1)
''',
    "renormalised": '''
def kept(p):
    rest = 1 - p[:, 0]
    return p[:, 1] / rest
''',
    "bits": '''
def count(n):
    a = torch.arange(n)
    return a | 1
''',
    "also_added": '''
def shifted(x, p):
    s = 1 - p[:, :1]
    y = x * s
    y += s
    return y
''',
    "batch_mean": '''
def pattern(w):
    return torch.softmax(w, dim=-1).mean(dim=0, keepdim=True)
''',
    "twice": '''
def stretched(x, by=2.0):
    return x * by


def both(q, k):
    a = stretched(q, by=5.0)
    b = stretched(k, by=5.0)
    return a - b.flip(0)
''',
    "softmax_again": '''
def blended(s, v):
    w = torch.softmax(s, dim=-1)
    again = torch.softmax(w, dim=-1)
    return again @ v
''',
    "last_cut": '''
def row_totals(x):
    return x[..., :-1].sum(dim=-1)
''',
    "tripled": '''
def doubled(x):
    return x * 3
''',
    "value_minus_one": '''
def previous(x, i):
    return x[i] - 1
''',
    "skips_negatives": '''
def total_before_negative(x):
    total = x[0] * 0
    for v in x:
        if v < 0:
            continue
        total = total + v
    return total
''',
    "split_by_rows": '''
def heads(t, n):
    return torch.stack(torch.tensor_split(t, n))
''',
    "chunk_method": '''
def heads(t, n):
    return torch.stack(t.chunk(n))
''',
    "first_four": '''
def first(x):
    sinks = 4
    return x[..., :sinks].sum(dim=-1)
''',
    "rescaled_new_term": '''
def carried(acc, r, x):
    return acc + r * x
''',
    "einsum_unknown_letter": '''
def blended(s, v):
    return torch.einsum("ij,jd->ik", torch.softmax(s, dim=-1), v)
''',
    "einsum_batched_keeps_keys": '''
def batched(w, v):
    return torch.einsum("bhqk,bhkd->bhkd", w, v)
''',
    "einsum_keeps_keys": '''
def blended(s, v):
    return torch.einsum("ij,jd->jd", torch.softmax(s, dim=-1), v)
''',
    "einsum_reads_transposed": '''
def blended(s, v):
    return torch.einsum("ji,jd->id", torch.softmax(s, dim=-1), v)
''',
    "centred_without_keepdim": '''
def centred(x):
    return x - x.mean(dim=-1)
''',
    "centred_by_halves": '''
def centred(x):
    d = x.shape[-1]
    return torch.cat([c - c.mean(dim=-1, keepdim=True) for c in x.split(d // 2, dim=-1)], dim=-1)
''',
    "returned_in_loop": '''
def running_total(x):
    out = torch.zeros_like(x)
    running = torch.zeros_like(x[0])
    for i in range(x.shape[0]):
        running = running + x[i]
        out[i] = running
        return out
''',
    "precedence": '''
def spread(x, n):
    return x / (x.shape[-1] // n ** 0.5)
''',
    "inverted_twice": '''
def both_masked(s, t, keep):
    a = torch.softmax(s.masked_fill(keep, float("-inf")), dim=-1)
    b = torch.softmax(t.masked_fill(keep, float("-inf")), dim=-1)
    return a + b
''',
    "turned": '''
def before(p, q):
    return p - q
''',
    "removed_twice": '''
def without(x, i):
    rest = torch.cat([x[:i], x[i + 1:]])
    return rest.sum(dim=0) - x[i]
''',
    "blend_cached": '''
def appended(values, v):
    values = torch.cat([values, v], dim=0)
    blend = values.mean(dim=0, keepdim=True)
    return torch.cat([values[:-1], blend], dim=0)
''',
    "einsum_two_batches": '''
def scored(q, k):
    return torch.einsum("bqd,ckd->bqk", q, k)
''',
    "einsum_two_rows": '''
def row_dots(a, b):
    return torch.einsum("...id,...jd->...i", a, b)
''',
    "windows_overlap": '''
def pieces(t, n):
    size = t.shape[-1] // n
    return t.unfold(-1, size, 1)[..., :n, :].movedim(-2, 0)
''',
    "tempered_by_hand": '''
def tempered(s):
    _, width = s.shape
    t = 0.8
    return torch.softmax(s / t, dim=-1)
''',
    "halved_groups": '''
def grouped(T):
    return torch.arange(T) // 2
''',
    "clamped_below": '''
def lifted(s):
    z = torch.clamp(s - s.max(dim=-1, keepdim=True).values, min=-10.0)
    return torch.exp(z)
''',
    "rectified_input": '''
def rectified(x, w):
    h = x @ w
    out = torch.relu(x)
    return out
''',
    "cat_other_way": '''
def appended(values, v):
    return torch.cat([v, values], dim=0)
''',
    "placed_from_n": '''
def placed(x, start):
    n = x.shape[0]
    pos = torch.arange(n) + n
    return x * pos[:, None]
''',
    "dot_from_one": '''
def dot(a, b):
    total = 0
    for i in range(1, len(a)):
        total = total + a[i] * b[i]
    return total
''',
    "flattened": '''
def normed(c):
    s = c ** 0.75
    return s / s.sum(dim=-1, keepdim=True)
''',
    "transposed_both": '''
def grown(cache, k, v):
    keys, values = cache
    k = k.transpose(1, 2)
    v = v.transpose(1, 2)
    return torch.cat([keys, k], dim=2), torch.cat([values, v], dim=2)
''',
    "anti_diagonal": '''
def future(T):
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    return i + j > T - 1
''',
    "padded_row": '''
def rows(x):
    pad = torch.ones(1, x.shape[1])
    return torch.cat([pad, x]).sum(dim=0)
''',
    "one_row_more": '''
def mean_after(x, start):
    n = x.shape[0]
    return x[start + 1:].sum(dim=0) / (n - start)
''',
    "from_the_middle": '''
def positions(T):
    return torch.arange(T) - T // 2
''',
    "tiles_averaged": '''
def tiles_total(x, block):
    T = x.shape[0]
    total = x.sum(dim=0)
    n_blocks = -(-T // block)
    return total / n_blocks
''',
    "variance_kept": '''
import math


def summed(a, b):
    return (a + b) / math.sqrt(2)
''',
    "sandwich": '''
def branches(x, ln1, attn, ln2, mlp):
    x = x + ln1(attn(ln1(x)))
    x = x + ln2(mlp(ln2(x)))
    return x
''',
    "query_rows": '''
def key_blocks(k, block):
    out = []
    for j0 in range(0, k.shape[0], block):
        j1 = min(j0 + block, k.shape[0])
        for i0 in range(0, k.shape[0], block):
            out.append(k[i0:i0 + (j1 - j0)].sum(dim=0) * (i0 + 1))
    return torch.stack(out)
''',
}


def _extra(tmp_path, learner, function, inputs):
    module = _load(tmp_path, learner, HEADER + EXTRA[learner])
    return repair(module, _load(tmp_path, "extra_reference", EXTRA_REFERENCE), function, inputs, {function})


def test_a_step_the_reference_does_not_take_is_mended_by_leaving_its_line_out(tmp_path):
    s = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    found = _extra(tmp_path, "normalised_twice", "weights", [(s,), (s[:1],)])
    assert found.words == "a step the reference does not take"
    assert "the line `s.mul_(2.0)` left out" in found.text


def test_a_log_sum_exp_where_the_sum_of_exponentials_was_meant_is_said_an_exp_missing(tmp_path):
    s = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    found = _extra(tmp_path, "by_lse", "normalised", [(s,), (s[:1],)])
    assert found.words == "an exp missing" and "`torch.exp(torch.logsumexp(" in found.text


def test_a_count_one_too_large_is_said_off_by_one(tmp_path):
    x = torch.arange(18.0).reshape(6, 3)
    found = _extra(tmp_path, "one_row_more", "mean_after", [(x, 1), (x, 3)])
    assert found.words == "off by one" and "`n - start - 1` for `n - start`" in found.text


def test_rounding_the_reference_never_does_is_mended_by_taking_the_call_away(tmp_path):
    # decimals=5 mends it as well (within the tolerance), but the rounding is the mistake, not its places
    s = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    found = _extra(tmp_path, "rounded", "weights", [(s,), (s[:1],)])
    assert found.words == "a call too many" and "`w` for `torch.round(w, decimals=4)`" in found.text


def test_a_part_of_a_tensor_mask_too_many_is_mended_by_leaving_it_out(tmp_path):
    found = _extra(tmp_path, "windowed", "future", [(1,), (4,), (7,)])
    assert found.words == "a part of the condition too many" and "(the part `i - j >= 3` left out)" in found.text


def test_a_rescaling_the_mend_makes_one_is_a_factor_too_many_not_off_by_one(tmp_path):
    x = torch.arange(12.0).reshape(4, 3)
    found = _extra(tmp_path, "rescaled", "total", [(x, 3), (x, 4)])
    assert found.words == "a factor too many: `n / (n - 1)`, which the mend makes 1"


def test_a_divisor_the_mend_makes_one_is_a_factor_too_many_not_a_term(tmp_path):
    p = torch.softmax(torch.randn(4, 5, generator=torch.Generator().manual_seed(0)), dim=-1)
    found = _extra(tmp_path, "renormalised", "kept", [(p,)])
    assert found.words == "a factor too many: `(1 - p[:, 0])`, which the mend makes 1"


def test_an_integers_bits_are_no_condition_with_a_part_too_many(tmp_path):
    found = _extra(tmp_path, "bits", "count", [(8,), (5,)])
    assert found is None or "condition" not in (found.words or "")


def test_a_name_also_added_is_no_factor_too_many(tmp_path):
    g = torch.Generator().manual_seed(0)
    x, p = torch.randn(4, 3, generator=g), torch.softmax(torch.randn(4, 3, generator=g), dim=-1)
    found = _extra(tmp_path, "also_added", "shifted", [(x, p)])
    assert found is not None and not (found.words or "").startswith("a factor too many")


def test_a_difference_taken_the_other_way_round_is_no_arguments_swapped(tmp_path):
    found = _extra(tmp_path, "turned", "before", [(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 4.0]))])
    assert found.words == "`p - q` the other way round"


def test_a_check_that_said_a_mend_carries_its_words_for_the_room(tmp_path):
    path = tmp_path / "lab-04-attention.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), LATE_ROWS), encoding="utf-8")
    failed = [r for r in check_untimed(load_lab(path), LABS[3]).results if not r.passed]
    assert failed and {r.mended for r in failed if r.label.startswith("causal_mask")} == {
        "off by one: the loop starts one step late, so its first step is never made"}


REVIEW_REFERENCE = '''
import torch


def hidden(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def heads(x, n):
    return x[:n - 1]


def normed(e):
    return e / e.sum(dim=-1, keepdim=True)


def spread(x):
    return x.sum(dim=0) / (x.shape[0] - 1)


def grown(x, y):
    return y + torch.tanh(x + y)
'''

REVIEW = {
    # a change that makes this loop endless meets a learner's `except Exception` inside it
    "swallowing": '''
def hidden(T):
    out = torch.zeros(T, T, dtype=torch.bool)
    i = 0
    while i < T:
        try:
            out[i, [j for j in range(T) if j > i + 1]] = True
            i += 1
        except Exception:
            continue
    return out
''',
    "exiting": '''
import sys


def hidden(T):
    if T > 10_000:
        sys.exit("too large")
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=2)
''',
    "slow_right": '''
import time


def hidden(T):
    time.sleep(0.6)
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
''',
    "annotated": '''
def heads(x: torch.Tensor | None, n: int = 4 // 2):
    return x[:n - 2]
''',
    "early_stop": '''
def heads(x, n):
    out = []
    for h in range(n - 2):
        out.append(x[h])
    return torch.stack(out)
''',
    "axis": '''
def normed(e):
    return e / e.sum(dim=0, keepdim=True)
''',
    "helper_loop": '''
def _total(x):
    total = torch.zeros(x.shape[1])
    for i in range(x.shape[0]):
        total = total + x[i]
    return total, i


def spread(x):
    total, i = _total(x)
    n = x.shape[0]
    return total / n
''',
    "once": '''
def grown(x, y):
    y += torch.tanh(x + y) + 1
    return y
''',
}


def _review(tmp_path, learner, function, inputs, deadline=None):
    module = _load(tmp_path, learner, HEADER + REVIEW[learner])
    return repair(module, _load(tmp_path, "review_reference", REVIEW_REFERENCE), function, inputs, {function},
                  deadline=deadline)


def test_a_change_that_makes_a_loop_endless_is_stopped_even_inside_the_learners_except(tmp_path):
    import time

    started = time.perf_counter()
    _review(tmp_path, "swallowing", "hidden", [(3,), (5,)], deadline=started + 2)
    assert time.perf_counter() - started < 4  # the last change tried stops at most a call's limit late


def test_a_change_that_calls_sys_exit_is_a_change_that_does_not_mend(tmp_path):
    assert _review(tmp_path, "exiting", "hidden", [(3,), (5,)]) is not None  # and SystemExit stayed inside


def test_a_right_function_slower_than_a_calls_limit_is_not_mended(tmp_path):
    assert _review(tmp_path, "slow_right", "hidden", [(3,)]) is None


def test_an_annotation_or_a_default_with_arithmetic_leaves_the_body_mended(tmp_path):
    x = torch.arange(12.0).reshape(4, 3)
    assert _review(tmp_path, "annotated", "heads", [(x, 3), (x, 4)]) is not None


def test_a_bound_less_two_where_less_one_is_meant_stops_the_loop_early(tmp_path):
    x = torch.arange(15.0).reshape(5, 3)
    words = _review(tmp_path, "early_stop", "heads", [(x, 3), (x, 5)]).words
    assert words.startswith("off by one: the loop stops one step early")


def test_another_axis_one_apart_is_the_wrong_axis_not_off_by_one(tmp_path):
    e = torch.rand(3, 4, generator=torch.Generator().manual_seed(0))
    assert _review(tmp_path, "axis", "normed", [(e,)]).words == "the wrong axis"


def test_a_loop_variable_of_a_helper_is_never_said_as_the_mend(tmp_path):
    # `total / i` (i from the helper's loop, n - 1 there) is right by chance; the count one less is the mend
    x = torch.arange(12.0).reshape(4, 3)
    found = _review(tmp_path, "helper_loop", "spread", [(x,), (x[:3],)])
    assert found is not None and found.text == "`n - 1` for `n` in `return ...`"


def test_a_term_inside_a_call_is_not_said_added_twice(tmp_path):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4, generator=g), torch.randn(4, generator=g)
    found = _review(tmp_path, "once", "grown", [(x, y)])
    assert found is not None and "added twice" not in found.words


def test_a_mean_the_reference_never_takes_is_mended_by_taking_it_away_not_by_another_axis(tmp_path):
    # the mean over an axis of size 1 (dim=-2) mends it as well: a mean that does nothing
    w = torch.randn(2, 1, 4, generator=torch.Generator().manual_seed(0))
    found = _extra(tmp_path, "batch_mean", "pattern", [(w,), (w * 2,)])
    assert found.words == "a call too many" and "keepdim=True)`" in found.text and "dim=-2" not in found.text


def test_one_slip_made_on_two_lines_is_mended_on_both_at_once(tmp_path):
    q, k = torch.arange(6.0).reshape(3, 2), torch.ones(3, 2)
    found = _extra(tmp_path, "twice", "both", [(q, k), (k, q)])
    assert found is not None and "`by=5.0` left out of `stretched(...)`" in found.text
    assert found.line == 10 and found.text.endswith(", and the same once more (line 11)")


def test_two_operations_grouped_by_python_not_as_meant_are_said_as_brackets(tmp_path):
    x = torch.arange(24.0).reshape(2, 12)
    found = _extra(tmp_path, "precedence", "spread", [(x, 2), (x, 3), (x[:, :8], 4)])
    assert found is not None and found.words == "brackets: Python computes `n ** 0.5` first (`**` before `//`)"
    assert "`(x.shape[-1] // n) ** 0.5` for `x.shape[-1] // n ** 0.5`" in found.text


def test_a_mask_inverted_on_two_lines_is_said_plainly_as_the_mask_inverted(tmp_path):
    g = torch.Generator().manual_seed(3)
    keep = torch.tensor([[True, False, True], [False, True, True]])
    inputs = [(torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g), keep) for _ in range(2)]
    found = _extra(tmp_path, "inverted_twice", "both_masked", inputs)
    assert found is not None and found.text.startswith("the mask inverted, and the same once more (line ")


@pytest.mark.parametrize("source, side, words", [
    ("d // h ** 0.5", "right", "brackets: Python computes `h ** 0.5` first (`**` before `//`)"),
    ("x / 2 * d", "left", "brackets: Python computes `x / 2` first (left to right)"),
    ("x * (w + b)", "right", "brackets: yours make Python compute `w + b` first"),
    ("(d // h) ** 0.5", "left", "brackets: yours make Python compute `d // h` first"),
])
def test_brackets_are_said_by_what_grouped_them_python_or_the_learner(source, side, words):
    assert _brackets(ast.parse(source, mode="eval").body, side) == words


def test_a_return_indented_into_the_loop_is_mended_by_moving_it_after_the_loop(tmp_path):
    x = torch.arange(12.0).reshape(4, 3)
    found = _extra(tmp_path, "returned_in_loop", "running_total", [(x,), (x[:2] * 2,)])
    assert found is not None and found.words.startswith("the `return` inside the loop (one indent too deep)")
    assert "`return ...` moved out of `for i in range(x.shape[0]): ...`, after it" in found.text


def test_a_mend_by_another_name_says_nothing_of_what_the_learners_names_mean(tmp_path):
    # name_words.py speaks of the reference's names; in a mend the names are the learner's
    g = torch.Generator().manual_seed(1)
    inputs = [(torch.randn(3, 3, generator=g), torch.randn(3, 2, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "softmax_again", "blended", inputs)
    assert found is not None and found.words == "the wrong variable" and found.text.startswith("`torch.softmax(s, dim=-1)` for")
    assert "the reference makes" not in found.text and "is made by" not in found.text


def test_an_index_that_cuts_the_last_entry_of_one_axis_is_said_as_that(tmp_path):
    x = torch.arange(12.0).reshape(3, 4)
    found = _extra(tmp_path, "last_cut", "row_totals", [(x,), (x[None] * 2,)])
    assert found is not None and found.words == "`x` without the last entry along its last axis, `x[..., :-1]`, where all of it is needed"


@pytest.mark.parametrize("index, axis", [("x[1:]", "its first axis"), ("x[..., :-1]", "its last axis"),
                                         ("x[:, :-1]", "axis 1"), ("x[..., 1:, :]", "axis -2")])
def test_the_axis_a_cut_shortens_is_named(index, axis):
    cut, said = _one_axis_cut(ast.parse(index, mode="eval").body.slice)
    assert cut is not None and said == axis


def test_an_index_that_cuts_two_axes_is_no_one_axis_cut():
    assert _one_axis_cut(ast.parse("x[1:, :-1]", mode="eval").body.slice) == (None, "")


def test_a_factor_one_apart_is_said_as_a_factor_not_a_count_off_by_one(tmp_path):
    x = torch.arange(6.0).reshape(2, 3)
    found = _extra(tmp_path, "tripled", "doubled", [(x,), (x + 1,)])
    assert found is not None and found.words == "the wrong factor: `* 3` where `* 2` is needed (there, 1.5 times what it should be)"


def test_a_divisor_one_apart_is_said_as_a_divisor_not_a_count_off_by_one(tmp_path):
    # `d // 2` for `d // 1` is two pieces for one, not a count one too large
    x = torch.arange(8.0).reshape(2, 4) ** 2
    found = _extra(tmp_path, "centred_by_halves", "centred", [(x,), (x[:1] - 3,)])
    assert found is not None and found.words == "the wrong divisor: `// 2` where `// 1` is needed"


def test_a_reduction_without_keepdim_is_mended_by_the_flag_and_said_so(tmp_path):
    # square inputs: the row means broadcast along the rows instead of the columns, and nothing raises
    x = torch.arange(9.0).reshape(3, 3) ** 2
    found = _extra(tmp_path, "centred_without_keepdim", "centred", [(x,), (x[:2, :2] - 1,)])
    assert found is not None and found.text == "`x.mean(dim=-1, keepdim=True)` for `x.mean(dim=-1)`"
    assert found.words.startswith("`keepdim=True` left out")


def test_one_taken_from_an_entry_where_its_index_was_meant_is_said_as_taken(tmp_path):
    x = torch.tensor([3.0, 7.0, 20.0, 50.0])
    found = _extra(tmp_path, "value_minus_one", "previous", [(x, 2), (x, 3)])
    assert found is not None and found.text == "`x[i - 1]` for `x[i] - 1`"
    assert found.words == "1 taken from the entry, not taken from its index: `x[i] - 1` is a value minus 1, not another entry"


def test_continue_where_break_was_meant_is_said_as_the_loop_going_on(tmp_path):
    x = torch.tensor([1.0, 2.0, -1.0, 5.0])
    found = _extra(tmp_path, "skips_negatives", "total_before_negative", [(x,), (x.flip(0),)])
    assert found is not None and found.text == "`break` for `continue`"
    assert found.words == "`continue` where `break` is needed: the loop goes on after the pass that should end it"


def test_a_floor_division_whose_number_is_divided_is_no_divisor():
    # `6 // d` mended to `7 // d`: the 6 is what is divided, so it is not said as "the wrong divisor"
    fdef = ast.parse("def f(d):\n    return 6 // d\n").body[0]
    nodes = list(ast.walk(fdef))
    six = next(i for i, n in enumerate(nodes) if isinstance(n, ast.Constant) and n.value == 6)
    words = mistake_words(fdef, Change("f", six, "const", 7, "constant", "", 2))
    assert words is None or "divisor" not in words


def test_a_split_left_along_its_default_first_axis_is_mended_by_its_dim(tmp_path):
    x = torch.arange(40.0).reshape(5, 8)  # (T, d_model): 2 heads of 4 columns, not 2 groups of rows
    found = _extra(tmp_path, "split_by_rows", "heads", [(x, 2), (x[:4], 4)])
    assert found is not None and found.text == "`torch.tensor_split(t, n, dim=-1)` for `torch.tensor_split(t, n)`"
    assert found.words == "`dim=-1` left out: `tensor_split` then works along its default axis, the first (dim 0)"


def test_a_method_called_without_its_dim_is_mended_by_its_dim(tmp_path):
    x = torch.arange(24.0).reshape(4, 6)
    found = _extra(tmp_path, "chunk_method", "heads", [(x, 2), (x, 3)])
    assert found is not None and found.text == "`t.chunk(n, dim=-1)` for `t.chunk(n)`"


def test_an_einsum_output_that_keeps_the_wrong_letter_is_said_with_the_letter_summed_over(tmp_path):
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(4, 4, generator=g), torch.randn(4, 3, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "einsum_keeps_keys", "blended", inputs)
    assert found is not None and found.text == '`"ij,jd->id"` for `"ij,jd->jd"`'
    assert found.words.startswith("einsum's output keeps `j` where `i` belongs") and "sums over `i`" in found.words


def test_an_einsum_operand_with_its_letters_swapped_is_said_read_transposed(tmp_path):
    g = torch.Generator().manual_seed(1)
    inputs = [(torch.randn(4, 4, generator=g), torch.randn(4, 3, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "einsum_reads_transposed", "blended", inputs)
    assert found is not None and found.text == '`"ij,jd->id"` for `"ji,jd->id"`'
    assert found.words.startswith("einsum reads operand 1 as `ji` where `ij` is meant")


def test_a_count_of_several_where_one_was_meant_is_mended_by_1(tmp_path):
    x = torch.arange(24.0).reshape(4, 6)
    found = _extra(tmp_path, "first_four", "first", [(x,), (x[:2],)])
    assert found is not None and found.text == "`1` for `4` in `sinks = ...`"


def test_a_factor_on_the_wrong_term_of_a_sum_is_said_with_the_term_it_belongs_on(tmp_path):
    g = torch.Generator().manual_seed(2)
    inputs = [(torch.randn(3, 4, generator=g), torch.rand(3, 1, generator=g), torch.randn(3, 4, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "rescaled_new_term", "carried", inputs)
    assert found is not None and found.text == "`r * acc + x` for `acc + r * x` in `return ...`"
    assert found.words == "the factor `r` on the wrong term: it multiplies `x`, where it belongs on `acc`"


def test_the_learner_only_mends_on_a_span_are_tried_before_the_spans_other_changes(tmp_path):
    # a span that is the whole function (a loop's values part at its end) must not let the
    # reference's many slips fill the budget before the few mends only a learner's code needs
    from attention_by_hand.lab.mend_changes import mend_changes
    from attention_by_hand.lab.mutants import definition
    from attention_by_hand.lab.repair import LATE, _candidates

    module = _load(tmp_path, "rescaled_new_term", HEADER + EXTRA["rescaled_new_term"])
    # brackets, ranges, `*` for `@`: many, and tried after the span's other changes
    ours = {c for c in mend_changes(definition(module, "carried")) if c.op not in LATE}
    found = [c for c in _candidates(module, "carried", {"carried"}, (1, 10_000)) if c.op not in LATE]
    first = [c in ours for c in found]
    assert any(first) and first == sorted(first, reverse=True)


def test_an_einsum_output_letter_no_operand_has_is_said_as_such_not_as_a_sum(tmp_path):
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(4, 4, generator=g), torch.randn(4, 3, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "einsum_unknown_letter", "blended", inputs)
    assert found is not None and found.text == '`"ij,jd->id"` for `"ij,jd->ik"`'
    assert found.words == "einsum's output names `k`, a letter no operand has, where `d` is meant"


def test_a_batched_einsum_with_four_output_letters_is_mended_by_one_letter(tmp_path):
    # its 23 other orders of the output must not use up the spellings tried before one letter is
    g = torch.Generator().manual_seed(0)
    inputs = [(torch.softmax(torch.randn(2, 3, 4, 4, generator=g), -1), torch.randn(2, 3, 4, 5, generator=g)) for _ in range(2)]
    found = _extra(tmp_path, "einsum_batched_keeps_keys", "batched", inputs)
    assert found is not None and found.text == '`"bhqk,bhkd->bhqd"` for `"bhqk,bhkd->bhkd"`'


def _g(seed):
    return torch.Generator().manual_seed(seed)


def test_a_slip_mended_two_ways_that_name_different_slips_keeps_both(tmp_path):
    inputs = [(torch.randn(5, 3, generator=_g(0)), 1), (torch.randn(4, 2, generator=_g(1)), 2)]
    found = _extra(tmp_path, "removed_twice", "without", inputs)
    assert found is not None and found.other is not None and found.words != found.other.words
    texts = (found.text, found.other.text)
    assert any("the term `x[i]` dropped" in t for t in texts)


def test_one_count_off_by_one_said_two_ways_is_one_slip_not_two(tmp_path):
    found = _mend(tmp_path, "hidden", "hidden", [(1,), (4,), (6,)])
    assert found is not None and found.other is None


def test_a_mend_said_with_another_that_names_another_slip_offers_both():
    event = {"words": "off by one", "text": "`x[i:]` for `x[i + 1:]`"}
    other = {"words": "a term too many (`x[i]`)", "text": "the term `x[i]` dropped"}
    said, words = mend_said(event, other, "line 3", "line 4")
    assert said.startswith("either of two changes gives the reference's values on every input tried")
    assert "off by one (line 3), with `x[i:]` for `x[i + 1:]`" in said and "a term too many (`x[i]`) (line 4)" in said
    assert words == "off by one, or a term too many (`x[i]`)"


def test_two_variables_of_different_shapes_are_not_exchanged_and_the_right_one_is_found(tmp_path):
    # `[blend[:-1], values]` mends it too, but only because blend[:-1] is empty
    inputs = [(torch.randn(3, 4, generator=_g(2)), torch.randn(1, 4, generator=_g(3))),
              (torch.randn(5, 2, generator=_g(4)), torch.randn(1, 2, generator=_g(5)))]
    found = _extra(tmp_path, "blend_cached", "appended", inputs)
    assert found is not None and found.op == "name" and found.text.startswith("`[values[:-1], v]` for")
    assert found.other is None or "exchanged" not in found.other.text


def test_an_einsum_operand_with_its_own_batch_letter_is_mended_by_the_shared_letter(tmp_path):
    inputs = [(torch.randn(2, 3, 4, generator=_g(6)), torch.randn(2, 5, 4, generator=_g(7))) for _ in range(2)]
    found = _extra(tmp_path, "einsum_two_batches", "scored", inputs)
    assert found is not None and found.text == '`"bqd,bkd->bqk"` for `"bqd,ckd->bqk"`'
    assert found.words.startswith("einsum's operand 2 is `ckd` where `bkd` is meant") and "`c`" in found.words


def test_an_einsum_with_leading_dots_is_mended_too(tmp_path):
    inputs = [(torch.randn(2, 3, 4, generator=_g(8)), torch.randn(2, 3, 4, generator=_g(9)))]
    found = _extra(tmp_path, "einsum_two_rows", "row_dots", inputs)
    assert found is not None and found.text == '`"...id,...id->...i"` for `"...id,...jd->...i"`'


def test_a_fixed_number_where_a_size_in_scope_was_meant_is_mended_by_the_size(tmp_path):
    inputs = [(torch.randn(4, 6, generator=_g(10)), 2), (torch.randn(3, 12, generator=_g(11)), 3)]
    found = _extra(tmp_path, "windows_overlap", "pieces", inputs)
    assert found is not None and found.text == "`size` for `1` in `t.unfold(-1, size, 1)`"
    assert found.words == "a fixed number, `1`, where the size `size` is meant"


def test_a_name_that_happens_to_hold_1_is_never_put_for_another(tmp_path):
    # `_` is 1 on these inputs: `/ _` for `/ t` would mend it only by removing the division
    inputs = [(torch.randn(1, 4, generator=_g(12)),), (torch.randn(1, 6, generator=_g(13)),)]
    found = _extra(tmp_path, "tempered_by_hand", "tempered", inputs)
    assert found is not None and "`/ t` removed" in found.text and found.other is None


def test_a_divisor_made_1_and_the_division_removed_are_one_slip(tmp_path):
    found = _extra(tmp_path, "halved_groups", "grouped", [(4,), (7,)])
    assert found is not None and found.other is None


def test_one_call_given_another_axis_two_ways_is_one_slip(tmp_path):
    x = torch.arange(40.0).reshape(5, 8)  # `dim=-1` and `dim=1` both mend it: the same slip
    found = _extra(tmp_path, "split_by_rows", "heads", [(x, 2), (x[:4], 4)])
    assert found is not None and found.other is None


def test_a_bound_of_a_call_the_reference_never_makes_is_no_rival_of_the_call(tmp_path):
    # `min=-100.0` mends it too, only because that bound is never reached: the clamp is said, alone
    s = torch.tensor([[0.0, -20.0, 1.0], [3.0, 2.0, -30.0]])
    found = _extra(tmp_path, "clamped_below", "lifted", [(s,), (s * 2,)])
    assert found is not None and "for `torch.clamp(" in found.text and found.other is None


def test_a_variable_of_another_shape_is_still_put_for_the_wrong_one(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(14)), torch.randn(4, 6, generator=_g(15))),
              (torch.randn(5, 4, generator=_g(16)), torch.randn(4, 6, generator=_g(17)))]
    found = _extra(tmp_path, "rectified_input", "rectified", inputs)
    assert found is not None and found.text == "`torch.relu(h)` for `torch.relu(x)` in `out = ...`"


def test_two_tensors_of_different_shapes_joined_in_the_wrong_order_are_said_joined_in_the_other_order(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(18)), torch.randn(1, 4, generator=_g(19))),
              (torch.randn(5, 2, generator=_g(20)), torch.randn(1, 2, generator=_g(21)))]
    found = _extra(tmp_path, "cat_other_way", "appended", inputs)
    assert found is not None and found.words == "the pieces joined in the other order" and "`values` first, then `v`" in found.text


def test_a_name_holding_0_on_one_input_only_may_still_mend(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(22)), 0), (torch.randn(2, 5, generator=_g(23)), 4)]
    found = _extra(tmp_path, "placed_from_n", "placed", inputs)
    assert found is not None and found.text == "`... + start` for `... + n` in `pos = ...`"


def test_an_accumulator_that_starts_at_0_is_never_said_for_a_loop_start(tmp_path):
    inputs = [(torch.randn(4, generator=_g(24)), torch.randn(4, generator=_g(25))),
              (torch.randn(6, generator=_g(26)), torch.randn(6, generator=_g(27)))]
    found = _extra(tmp_path, "dot_from_one", "dot", inputs)
    assert found is not None and "`range(0, len(a))` for `range(1, len(a))`" in found.text and found.other is None


def test_a_change_that_takes_out_what_another_tweaks_is_said_instead(tmp_path):
    # `* 0.75` for `** 0.75` mends it too (the rows' division cancels a factor): the power is the learner's own
    inputs = [(torch.rand(3, 4, generator=_g(28)) + 0.1,), (torch.rand(2, 5, generator=_g(29)) + 0.1,)]
    found = _extra(tmp_path, "flattened", "normed", inputs)
    assert found is not None and found.text == "`** 0.75` removed from `s = ...`"
    assert found.words == "a power too many (`** 0.75`)"


def test_one_call_too_many_on_two_lines_is_said_taken_off_both(tmp_path):
    cache = (torch.randn(1, 2, 3, 4, generator=_g(30)), torch.randn(1, 2, 3, 4, generator=_g(31)))
    inputs = [(cache, torch.randn(1, 2, 2, 4, generator=_g(32)), torch.randn(1, 2, 2, 4, generator=_g(33)))]
    found = _extra(tmp_path, "transposed_both", "grown", inputs)
    assert found is not None and found.text.startswith("`k` for `k.transpose(1, 2)`") and "once more" in found.text


def test_a_count_run_from_its_end_is_said_reversed_not_off_by_one(tmp_path):
    found = _extra(tmp_path, "anti_diagonal", "future", [(4,), (6,)])
    assert found is not None and found.op == "flip"
    assert found.words == "the order reversed: counted from the end, where it counts from the start"


def test_a_made_tensor_one_entry_too_long_is_said_as_an_extra_slot(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(34)),), (torch.randn(2, 5, generator=_g(35)),)]
    found = _extra(tmp_path, "padded_row", "rows", inputs)
    assert found is not None and found.words.startswith("an extra slot: `torch.ones(1, x.shape[1])`")


def test_a_whole_number_given_to_a_helper_is_no_size_to_mend():
    from attention_by_hand.lab.mend_changes import mend_changes

    fdef = ast.parse("def f(x, hs):\n    m = helper(1)\n    return x.unfold(-1, hs, 1) * m\n").body[0]
    sized = [c for c in mend_changes(fdef) if c.op == "size_for"]
    assert sized and all("unfold" in c.text for c in sized)


def test_a_name_put_for_another_that_makes_a_divisor_1_is_no_rival_of_the_division_removed(tmp_path):
    # `-(-T // T)` for `-(-T // block)`, or `-(block // -T)`, makes n_blocks 1 on every input: right by chance
    inputs = [(torch.randn(8, 3, generator=_g(36)), 2), (torch.randn(5, 7, generator=_g(37)), 3)]
    found = _extra(tmp_path, "tiles_averaged", "tiles_total", inputs)
    assert found is not None and found.text == "`/ n_blocks` removed from `return ...`" and found.other is None


def test_a_number_that_makes_its_call_1_is_said_as_the_call_a_factor_too_many(tmp_path):
    inputs = [(torch.randn(3, generator=_g(38)), torch.randn(3, generator=_g(39)))]
    found = _extra(tmp_path, "variance_kept", "summed", inputs)
    assert found is not None and found.words == "a factor too many: `math.sqrt(2)`, which the mend makes 1"


def _layers(seed):
    torch.manual_seed(seed)
    return (torch.nn.LayerNorm(4), torch.nn.Linear(4, 4), torch.nn.LayerNorm(4), torch.nn.Linear(4, 4))


def test_a_layer_wrapped_around_each_branch_is_said_left_out_of_both_in_its_own_words(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(40)), *_layers(41)), (torch.randn(2, 5, 4, generator=_g(42)), *_layers(43))]
    found = _extra(tmp_path, "sandwich", "branches", inputs)
    assert found is not None and found.text.startswith("`attn(ln1(x))` for `ln1(attn(ln1(x)))`")
    assert "`mlp(ln2(x))` for `ln2(mlp(ln2(x)))` (the layer `ln2` left out)" in found.text


def test_a_loops_variable_put_for_another_in_both_bounds_of_one_slice_mends_it(tmp_path):
    # the keys cut from the query block's rows: `j0` for `i0` in both places of the slice
    inputs = [(torch.randn(6, 2, generator=_g(44)), 2), (torch.randn(7, 3, generator=_g(45)), 3)]
    found = _extra(tmp_path, "query_rows", "key_blocks", inputs)
    assert found is not None and found.text == "`j0` for `i0` in each of its 2 places in `k[i0:i0 + (j1 - j0)]`"



def test_a_factor_set_in_a_loop_is_not_judged_by_its_last_value(tmp_path):
    # `r` at the return is the last step's: made 1 there says nothing of the steps before it
    from attention_by_hand.lab.mutants import changes
    from attention_by_hand.lab.outcomes import locals_on
    from attention_by_hand.lab.idle_names import made_idle
    from attention_by_hand.lab.repair import UNIT_SAID

    looped = "def f(x, n):\n    out = x\n    for i in range(n):\n        r = n - i + 1\n        out = out * r\n    return out\n"
    once = "def f(x, n):\n    i = n - 1\n    r = n - i + 1\n    return x * r\n"
    inputs = [(torch.ones(2), 3), (torch.ones(3), 2)]
    for name, source, line, expected in (("looped", looped, 4, False), ("once", once, 3, True)):
        module = _load(tmp_path, name, source)
        change = next(c for c in changes(module, "f", glossed=False) if c.op == "name" and c.arg == ("n", "i") and c.line == line)
        seens = [locals_on(module, "f", args, {"f"}) for args in inputs]
        assert made_idle(change, module, "f", inputs, seens, UNIT_SAID) is expected


def test_a_change_inside_a_term_whose_removal_mends_it_is_no_rival_of_the_removal(tmp_path):
    # `- 2 // T` for `- T // 2` mends it too, only because 2 // T is 0: the term is what was added
    found = _extra(tmp_path, "from_the_middle", "positions", [(4,), (6,)])
    assert found is not None and "the term `T // 2` dropped" in found.text and found.other is None



def test_a_part_of_a_mask_made_by_name_is_mended_by_leaving_it_out_and_nothing_that_empties_it(tmp_path):
    # `==` for `>=`, `1` for `2`, `j - i` for `i - j` or `off_stride[0]` each leave off_stride
    # nothing to add to `ahead`: right only by chance; the part left out is the mistake
    found = _extra(tmp_path, "strided", "future", [(1,), (4,), (7,)])
    assert found is not None and found.other is None
    assert found.text == "`ahead` for `ahead | off_stride` (the part `off_stride` left out) in `return ...`"


def test_a_call_taken_away_that_makes_a_divisor_all_ones_is_no_rival_of_the_division_removed(tmp_path):
    # `p` for `torch.tril(p)` makes `seen` each row's total, 1 for weights: right by chance
    inputs = [(torch.softmax(torch.randn(2, 4, 4, generator=_g(46)), dim=-1),),
              (torch.softmax(torch.randn(5, 5, generator=_g(47)), dim=-1),)]
    found = _extra(tmp_path, "share_of_past", "first_weight", inputs)
    assert found is not None and found.text == "`/ seen` removed from `return ...`" and found.other is None


def test_a_divisor_one_count_too_large_is_mended_by_one_less(tmp_path):
    inputs = [(torch.randn(6, 3, generator=_g(48)), 0), (torch.randn(5, 2, generator=_g(49)), 0)]
    found = _extra(tmp_path, "over_all_rows", "mean_after", inputs)
    assert found is not None and found.text == "`T - 1` for `T` in `return ...`"


def test_empty_tensors_added_to_are_mended_by_zeros_at_each_place_of_the_line(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(50)), torch.randn(2, 5, generator=_g(51)))]
    torch.use_deterministic_algorithms(True)  # as the child runs learners' code: empty tensors hold nan
    try:
        found = _extra(tmp_path, "started_empty", "sums", inputs)
    finally:
        torch.use_deterministic_algorithms(False)
    assert found is not None and found.text.startswith("`zeros_like(...)` for `empty_like(...)`")
    assert found.text.endswith("and the same once more on that line")


def test_a_name_set_and_read_on_one_line_is_mended_by_another_name_at_both_places(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(52)), torch.randn(3, 4, generator=_g(53)), torch.randn(3, 4, generator=_g(54)))]
    found = _extra(tmp_path, "rotated_values", "turned", inputs)
    assert found is not None and found.words == "`v` where `k` belongs, at each of its places on that line"
    assert found.text == "`q, k = (torch.tanh(q), torch.tanh(k))` for `q, v = (torch.tanh(q), torch.tanh(v))`"


def test_where_the_function_raised_the_lines_that_feed_that_line_are_tried_first(tmp_path, monkeypatch):
    # the slice's end, one short, empties the last tile: `amax` raises a line later; with room for
    # only a few changes (90 of 316: the learner-only ones of the raising line, an appended piece
    # squeezed among them, come first), those of the lines feeding the raising one come next
    import attention_by_hand.lab.repair as repair_module

    monkeypatch.setattr(repair_module, "MAX_CHANGES", 90)
    inputs = [(torch.randn(5, 3, generator=_g(55)), 4), (torch.randn(8, 2, generator=_g(56)), 4)]
    found = _extra(tmp_path, "slice_end_clamped", "tile_maxima", inputs)
    assert found is not None and "`min(j + block, T)` for `min(j + block, T - 1)`" in found.text


def test_the_lines_feeding_a_line_are_those_setting_what_it_reads_two_steps_back():
    from attention_by_hand.lab.raised_lines import feeding_lines

    fdef = ast.parse("def f(x):\n    a = x + 1\n    b = a * 2\n    c = x - 1\n    d = b.sum()\n    return d\n").body[0]
    assert feeding_lines(fdef, 5) == {5, 3, 2}


def test_the_line_a_function_raised_at_is_its_own_line_not_torchs():
    from attention_by_hand.lab.raised_lines import raised_at

    namespace = {}
    exec(compile("import torch\ndef f(x):\n    y = x[:0]\n    return y.amax(dim=0)\n", "learner.py", "exec"), namespace)
    assert raised_at(namespace["f"], (torch.ones(3),)) == 4


def test_a_function_that_is_no_def_of_its_own_is_not_run_for_the_line_it_raised_at():
    import functools

    from attention_by_hand.lab.raised_lines import raised_at

    assert raised_at(functools.partial(torch.amax, dim=0), (torch.ones(0),)) is None


def test_another_axis_that_makes_a_sum_of_weights_each_rows_total_is_still_said_beside_the_removal(tmp_path):
    # the reference divides by each row's total (1 for weights): `dim=-1` for `dim=0` is a true mend,
    # no chance, though `/ total` removed mends it too
    g = _g(57)
    inputs = [(torch.softmax(torch.randn(5, 5, generator=g), -1), torch.randn(5, 3, generator=g)),
              (torch.softmax(torch.randn(4, 4, generator=g), -1), torch.randn(4, 2, generator=g))]
    found = _extra(tmp_path, "pooled_by_columns", "pooled", inputs)
    assert found is not None and found.words == "the wrong axis"


def test_a_slice_rebound_by_a_sum_is_mended_by_adding_into_it_in_place(tmp_path):
    inputs = [(torch.randn(6, 3, generator=_g(60)), 2), (torch.randn(5, 2, generator=_g(61)), 3)]
    found = _extra(tmp_path, "rebound_slice", "block_sums", inputs)
    assert found is not None and found.text == "`rows += x[i:i + block] * 2` for `rows = rows + x[i:i + block] * 2`"
    assert found.words.startswith("`rows = rows + ...` makes a new tensor, and the one `rows` was taken from (a slice or a view of it) keeps")


def test_a_reduction_over_two_axes_on_two_lines_is_mended_by_one_axis_on_both(tmp_path):
    inputs = [(torch.randn(3, 5, generator=_g(62)),), (torch.randn(2, 4, 6, generator=_g(63)),)]
    found = _extra(tmp_path, "two_axes_normed", "normed_rows", inputs)
    assert found is not None and found.text.startswith("`dim=-1` for `dim=(-2, -1)` in `mean(...)`, and the same once more")
    assert found.words == "the reduction over 2 axes at once (`(-2, -1)`), where it works along axis -1 alone"


def test_a_loops_counter_added_where_one_was_meant_is_mended_by_1(tmp_path):
    inputs = [(torch.tensor([0, 1, 2, 1, 0, 1]), 3), (torch.tensor([2, 2, 0, 1]), 3)]
    found = _extra(tmp_path, "counted_by_place", "pair_counts", inputs)
    assert found is not None and found.text == "`1` for `i` in `counts[ids[i], ids[i + 1]] += ...`"
    assert found.words == "the loop's counter `i` added on each pass, where each pass adds 1"


def test_a_step_inside_an_if_that_every_pass_needs_is_mended_by_moving_it_before_the_if(tmp_path):
    inputs = [(torch.randn(7, 2, generator=_g(64)), 3, 0.5), (torch.randn(4, 3, generator=_g(65)), 2, 2.0)]
    found = _extra(tmp_path, "scaled_on_first", "scaled_blocks", inputs)
    assert found is not None and found.text == "`s = s * scale` moved out of `if j == 0: ...`, before it"
    assert found.words.startswith("`s = s * scale` inside `if j == 0: ...` (one indent too deep)")


def test_the_identity_where_nothing_should_stay_is_mended_by_zeros(tmp_path):
    inputs = [(torch.randn(3, 4, 4, generator=_g(66)), torch.randn(3, 4, 2, generator=_g(67)), 1),
              (torch.randn(2, 5, 5, generator=_g(68)), torch.randn(2, 5, 3, generator=_g(69)), 0)]
    found = _extra(tmp_path, "identity_head", "without_head", inputs)
    assert found is not None and found.text.startswith("`zeros(...)` for `eye(...)` (eye is the identity")


def test_a_power_of_cos_and_of_sin_for_the_turn_by_a_product_is_mended_on_both(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(70)), torch.rand(4, generator=_g(71)), torch.arange(3.0)[:, None]),
              (torch.randn(2, 2, generator=_g(72)), torch.rand(2, generator=_g(73)), torch.tensor([[5.0], [2.0]]))]
    found = _extra(tmp_path, "powers_for_turns", "turns", inputs)
    assert found is not None and found.text.startswith("`torch.cos(theta * p)` for `torch.cos(theta) ** p`, and the same once more")
    assert found.words == "`torch.cos(theta) ** p`, a power of the cos, where the cos of the product is meant: `cos(a) ** p` is not `cos(a * p)`"


def test_an_item_of_a_loop_that_is_no_counter_is_never_said_a_counter(tmp_path):
    inputs = [(torch.tensor([0, 1, 2, 1, 0, 1]), 3), (torch.tensor([2, 2, 0, 1]), 3)]
    found = _extra(tmp_path, "counted_by_next", "pair_counts", inputs)
    assert found is None or "counter" not in found.words


def test_a_count_rounded_down_is_mended_by_rounding_it_up_not_by_a_longer_range(tmp_path):
    # `// size` removed mends it too (the passes past the end find empty slices): only by chance
    inputs = [(torch.randn(7, 2, generator=_g(74)), 3), (torch.randn(9, 3, generator=_g(75)), 4)]
    found = _extra(tmp_path, "chunks_rounded_down", "chunk_means", inputs)
    assert found is not None and found.text == "`-(-x.shape[0] // size)` for `x.shape[0] // size` in `for c in range(x.shape[0] // size): ...`"
    assert found.words == "`x.shape[0] // size` rounds down, so a last, shorter part is left out; `-(-x.shape[0] // size)` rounds up and counts it"


def test_a_number_of_habit_after_a_call_is_mended_by_taking_the_indexing_out(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(76)),), (torch.randn(2, 5, generator=_g(77)),)]
    found = _extra(tmp_path, "centred_by_first_row", "centred", inputs)
    assert found is not None and found.text.startswith("`x.mean(dim=-1, keepdim=True)` for `x.mean(dim=-1, keepdim=True)[0]`")


def test_a_loop_over_every_row_after_the_first_row_was_taken_is_mended_by_starting_at_1(tmp_path):
    inputs = [(torch.randn(4, 3, generator=_g(78)),), (torch.randn(2, 5, generator=_g(79)),)]
    found = _extra(tmp_path, "total_from_first_row", "row_total", inputs)
    assert found is not None and found.text == "`range(1, x.shape[0])` for `range(x.shape[0])`"
    assert found.words == "off by one: the loop starts at 0, one step early, so its pass for 0 is one too many"


def test_a_sum_started_with_ones_is_mended_by_zeros(tmp_path):
    inputs = [(torch.randn(4, 3, generator=_g(80)),), (torch.randn(2, 5, generator=_g(81)),)]
    found = _extra(tmp_path, "total_from_ones", "row_total", inputs)
    assert found is not None and found.text.startswith("`zeros_like(...)` for `ones_like(...)` (zeros start a sum or a count at 0; ones start it at 1)")


def test_a_divisor_outside_a_power_is_mended_by_moving_it_into_the_exponent(tmp_path):
    inputs = [(torch.arange(5.0)[:, None], 100.0, torch.arange(0.0, 6.0, 2.0), 6), (torch.arange(3.0)[:, None], 10.0, torch.tensor([0.0, 2.0]), 4)]
    found = _extra(tmp_path, "slowed_outside_the_power", "slowed", inputs)
    assert found is not None and found.text == "`p / base ** (k / d)` for `p / base ** k / d` in `return ...`"
    assert found.words == "brackets: `/ d` stands outside the power `base ** k`, where it belongs in its exponent"


def test_a_factor_on_a_softmaxs_result_is_mended_by_moving_it_onto_its_input(tmp_path):
    inputs = [(torch.randn(3, 4, generator=_g(82)), 2.0), (torch.randn(2, 5, generator=_g(83)), 0.5)]
    found = _extra(tmp_path, "cooled_after", "cooled", inputs)
    assert found is not None and found.text == "`torch.softmax(s / c, dim=-1)` for `torch.softmax(s, dim=-1) / c` in `return ...`"
    assert found.words == "`/ c` applied to what `softmax` returns, where it belongs on its input"


def test_a_size_read_along_another_axis_is_mended_by_that_axis(tmp_path):
    inputs = [(torch.randn(2, 3, 5, 4, generator=_g(84)),), (torch.randn(3, 2, 6, 2, generator=_g(85)),)]
    found = _extra(tmp_path, "steps_along_the_first_axis", "steps_of", inputs)
    assert found is not None and found.other is None and found.words == "the wrong axis"
    assert found.text == "`torch.arange(x.shape[-2])` for `torch.arange(x.shape[0])` in `return ...`"


def test_a_name_of_another_shape_only_where_the_learner_is_wrong_is_tried_among_the_first(tmp_path):
    from attention_by_hand.lab.repair import _candidates

    module = _load(tmp_path, "twins", HEADER + EXTRA["twins_made_alike"])
    # the wrong input first (v narrower than q), then one where q and v have one shape
    inputs = [(torch.randn(3, 4, generator=_g(86)), torch.randn(3, 2, generator=_g(87))),
              (torch.randn(3, 4, generator=_g(88)), torch.randn(3, 4, generator=_g(89)))]
    order = _candidates(module, "twin_sums", {"twin_sums"}, None, inputs, wrong=1)
    mend = next(i for i, c in enumerate(order) if c.text.startswith("`torch.zeros_like(v)` for `torch.zeros_like(q)`"))
    # in the order of the lines, as a name of the same shape would be: before the next line's
    assert mend < next(i for i, c in enumerate(order) if c.text.startswith("`aq.cumsum(0)` for `q.cumsum(0)`"))


def test_windows_that_do_not_overlap_are_mended_by_every_window(tmp_path):
    inputs = [(torch.randn(6, generator=_g(90)),), (torch.randn(4, generator=_g(91)),)]
    found = _extra(tmp_path, "sums_of_pairs_apart", "neighbour_sums", inputs)
    assert found is not None and found.text == "`x.unfold(0, 2, 1)` for `x.view(-1, 2)`"
    assert found.words.startswith("`x.view(-1, 2)` cuts the sequence into windows of 2 that do not overlap")


def test_a_tensor_of_ids_that_picks_whole_rows_is_mended_by_one_entry_per_row(tmp_path):
    inputs = [(torch.tensor([2, 0, 1, 1]), 3), (torch.tensor([0, 2, 1]), 4)]
    found = _extra(tmp_path, "marks_by_rows", "marks", inputs)
    assert found is not None and found.text == "`m[torch.arange(len(ids)), ids]` for `m[ids]`"
    assert found.words == "`m[ids]` picks whole rows of `m`, those whose numbers are in `ids`, where one entry per row is meant: row i's at column ids[i]"


LAYER_NORM_PAST_THE_LAST_AXIS = '''
def layer_norm(x, weight, bias, eps=1e-5):
    last = x.ndim
    mean = x.mean(dim=last, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=last, keepdim=True)
    return weight * (x - mean) / torch.sqrt(var + eps) + bias
'''


def test_a_count_of_axes_is_never_mended_by_a_slice_of_the_tensor(tmp_path):
    # `x[0].ndim` is `x.ndim - 1` and gives the right values, but the learner meant no slice
    found = failed_hints(tmp_path, "lab-06-transformer.py", LAYER_NORM_PAST_THE_LAST_AXIS, "layer_norm")
    assert found and all("x[0]" not in h and "is one past the last" in h for h in found)


PAIRS_COUNTED_BY_EITHER = '''
def bigram_counts(ids, vocab_size):
    table = torch.zeros(vocab_size, vocab_size)
    firsts, seconds = ids[:-1], ids[1:]
    for row in range(vocab_size):
        starts = firsts == row
        for col in range(vocab_size):
            table[row, col] = (starts | (seconds == col)).float().sum()
    return table
'''


def test_an_either_or_of_two_masks_where_both_must_hold_is_mended_by_the_other_operation(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PAIRS_COUNTED_BY_EITHER, "bigram_counts")
    assert found and all("an either-or of two masks (`|`) where a both-and of two masks (`&`) is needed" in h for h in found)


MASKED_WHEN_NOT_CAUSAL = '''
def attention_backward(q, k, v, d_out, causal=False):
    root = math.sqrt(q.shape[-1])
    T = q.shape[-2]
    s = q @ k.transpose(-2, -1) / root
    if not causal:
        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    p = torch.softmax(s, -1)
    dv = p.transpose(-2, -1) @ d_out
    dp = d_out @ v.transpose(-2, -1)
    ds = p * (dp - (p * dp).sum(-1, keepdim=True))
    return ds @ k / root, ds.transpose(-2, -1) @ q / root, dv
'''


def test_a_condition_written_with_a_not_too_many_is_mended_by_taking_it_away(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", MASKED_WHEN_NOT_CAUSAL, "attention_backward")
    assert found and all("with `causal` for `not causal` in `if not causal: ...`" in h for h in found)


LOG_SUM_STARTED_AT_ZERO = '''
def online_softmax(scores):
    acc = scores.new_zeros(scores.shape[:-1])
    for column in scores.unbind(dim=-1):
        acc = torch.logaddexp(acc, column)
    return (scores - acc.unsqueeze(-1)).exp()
'''


def test_a_running_log_sum_started_at_zero_is_mended_by_starting_it_at_minus_infinity(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", LOG_SUM_STARTED_AT_ZERO, "online_softmax")
    assert found and all("a running log-sum started at 0 where it starts at -inf" in h
                         and "with `-inf` for `0` as the start of `acc`" in h for h in found)


RUNNING_MAXIMUM_STARTED_AT_ZERO = '''
def online_softmax(scores):
    top = scores.new_zeros(scores.shape[:-1])
    total = torch.zeros_like(top)
    for column in scores.unbind(dim=-1):
        higher = torch.maximum(top, column)
        total = total * torch.exp(top - higher) + torch.exp(column - higher)
        top = higher
    return torch.exp(scores - top[..., None]) / total[..., None]
'''


def test_a_running_maximum_started_at_zero_is_said_as_a_maximum_not_a_log_sum(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", RUNNING_MAXIMUM_STARTED_AT_ZERO, "online_softmax")
    assert found and all("log-sum" not in h for h in found)
    assert any("a running maximum started at 0 where it starts at -inf" in h for h in found)
