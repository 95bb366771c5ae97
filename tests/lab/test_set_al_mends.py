"""Mistakes of the kinds the retired set AL held, each written here another way than set AL's file: a
running maximum written as the minimum (two mends of one line, one of them only a shift the softmax
forgives), `//` and `%` exchanged, a quarter turn in degrees, a norm taken for a sum of squares, the
weights returned or read one step before their division, a change of the reference followed by the
learner's own mend, and the calls whose words say what they take (`cross_entropy`, `as_strided`,
`adaptive_avg_pool1d`, `clamp`)."""

from __future__ import annotations

from labhelpers import failed_hints

# (m + s - |m - s|) / 2 is min(m, s): the running "maximum" is the minimum
RUNNING_MINIMUM = '''
def online_softmax(scores):
    m = scores[..., 0]
    l = torch.zeros_like(m)
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        m_new = 0.5 * (m + s - abs(m - s))
        l = l * torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m[..., None]) / l[..., None]
'''


def test_of_two_mends_of_one_line_the_one_that_makes_the_references_maximum_is_said(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", RUNNING_MINIMUM, "online_softmax")
    assert found and all("`m + s + abs(m - s)` for `m + s - abs(m - s)`" in h and "a term too many" not in h for h in found)


# which head and which channel of a column, the two operators exchanged
DIV_MOD_EXCHANGED = '''
def merge_heads(t):
    n_heads, T, head_size = t.shape
    j = torch.arange(n_heads * head_size)
    return t.permute(1, 0, 2)[:, j % head_size, j // head_size]
'''


def test_floor_division_and_remainder_exchanged_are_mended_together(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", DIV_MOD_EXCHANGED, "merge_heads")
    assert found and all("`//` and `%` exchanged" in h and "`t.permute(1, 0, 2)[:, j // head_size, j % head_size]`" in h for h in found)


# sin(x) written as cos(x - 90), the quarter turn in degrees
QUARTER_TURN_IN_DEGREES = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    p = torch.arange(n_positions, dtype=torch.float32)[:, None]
    angles = p / base ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    table = torch.empty(n_positions, d_model)
    table[:, 0::2] = torch.cos(angles - 90)
    table[:, 1::2] = torch.cos(angles)
    return table
'''


def test_an_angle_in_degrees_is_mended_in_radians(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", QUARTER_TURN_IN_DEGREES, "sinusoidal_table")
    assert found and all("an angle in degrees (`90`)" in h and "`torch.pi / 2` for `90`" in h for h in found)


# the variance as the norm of the centred row over d: a length, not a sum of squares
NORM_FOR_SUM_OF_SQUARES = '''
def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(-1, keepdim=True)
    var = centred.norm(dim=-1, keepdim=True) / x.shape[-1]
    return centred / (var + eps).sqrt() * weight + bias
'''


def test_a_norm_taken_for_a_sum_of_squares_is_mended_squared(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", NORM_FOR_SUM_OF_SQUARES, "layer_norm")
    assert found and all("a norm taken for a sum of squares" in h and "`centred.norm(dim=-1, keepdim=True) ** 2`" in h
                         for h in found)


# the scores returned beside the output, where their softmax was meant
SCORES_RETURNED = '''
def self_attention(x, query, key, value):
    q, k = query(x), key(x)
    s = (q @ k.T / k.shape[-1] ** 0.5).masked_fill(causal_mask(x.shape[0]), float("-inf"))
    w = s.softmax(dim=-1)
    return w @ value(x), s
'''


def test_a_name_returned_one_step_early_is_said_as_that_step(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SCORES_RETURNED, "self_attention")
    assert found and all("a step too early returned: `s`, from which line" in h and "makes `w`" in h for h in found)


# the first entry of the MLP's output taken, as of a module that returns a tuple: a change of the
# reference says it on the MLP's input, the learner's own mend where the `[0]` is
FIRST_OF_THE_MLP = '''
def block_forward(x, ln1, attn, ln2, mlp):
    x = x + attn(ln1(x))
    return x + mlp(ln2(x))[0]
'''


def test_a_change_of_the_reference_is_followed_by_the_learners_own_mend(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", FIRST_OF_THE_MLP, "block_forward")
    assert found and all(h.startswith("yours equals the reference with") and "; in your code, only the first entry" in h
                         and "`mlp(ln2(x))` for `mlp(ln2(x))[0]`" in h for h in found)


# the exponentials read where their normalised rows were meant, inside the returned product
EXPONENTIALS_READ = '''
def self_attention(x, query, key, value):
    q, k, v = query(x), key(x), value(x)
    e = torch.exp((q @ k.T / k.shape[-1] ** 0.5).masked_fill(causal_mask(x.shape[0]), float("-inf")))
    w = e / e.sum(-1, keepdim=True)
    return e @ v, w
'''


def test_a_name_read_one_step_early_in_the_return_is_said_as_read(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", EXPONENTIALS_READ, "self_attention")
    assert found and all("a step too early read: `e`, from which line" in h for h in found)


# the output bound to the scores' name after the weights were made from them
SCORES_NAME_REUSED = '''
def self_attention(x, query, key, value):
    q, k = query(x), key(x)
    s = (q @ k.T / k.shape[-1] ** 0.5).masked_fill(causal_mask(x.shape[0]), float("-inf"))
    w = s.softmax(dim=-1)
    s = w @ value(x)
    return s, s
'''


def test_a_name_bound_again_after_the_step_is_not_said_to_come_before_it(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SCORES_NAME_REUSED, "self_attention")
    assert found and all("`(s, w)` for `(s, s)`" in h and "a step too early" not in h for h in found)


# probabilities handed to cross_entropy, which takes scores and applies its own softmax
PROBABILITIES_TO_CROSS_ENTROPY = '''
def average_nll(probs, ids):
    rows = probs.index_select(0, ids[:-1])
    return F.cross_entropy(rows, ids[1:])
'''


def test_cross_entropy_given_probabilities_is_said_to_take_scores(tmp_path):
    found = failed_hints(tmp_path, "lab-03-bigram.py", PROBABILITIES_TO_CROSS_ENTROPY, "average_nll")
    assert found and all("`cross_entropy`, which the reference does not call, takes SCORES (logits)" in h for h in found)


# strides counted in bytes, as NumPy's as_strided takes them
STRIDES_IN_BYTES = '''
def split_heads(t, n_heads):
    T, d = t.shape
    size = t.element_size()
    return t.contiguous().as_strided((n_heads, T, d // n_heads), (d // n_heads * size, d * size, size))
'''


def test_as_strided_is_said_to_count_in_elements(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", STRIDES_IN_BYTES, "split_heads")
    assert found and all("`as_strided`, which the reference does not call, counts its strides in ELEMENTS, not bytes" in h
                         for h in found)


# the pool told the window's length, where it takes the output's
POOL_GIVEN_THE_WINDOW = '''
def softmax(scores):
    n = scores.shape[-1]
    mean = F.adaptive_avg_pool1d(scores.reshape(-1, 1, n), n).reshape(scores.shape[:-1] + (1,))
    e = torch.exp(scores - mean)
    return e / e.sum(dim=-1, keepdim=True)
'''


def test_an_adaptive_pool_is_said_to_take_its_output_size(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", POOL_GIVEN_THE_WINDOW,
                         "softmax")
    assert found and all("`adaptive_avg_pool1d`, which the reference does not call, takes the size of its OUTPUT" in h
                         for h in found)


# one-hot rows as 1 - distance, cut from below only: the words left of the id keep 1 + their distance
CLAMPED_FROM_BELOW_ONLY = '''
def one_hot_lookup(ids, weight):
    hot = (1 - (torch.arange(weight.shape[0]) - ids[:, None])).clamp(min=0).to(weight.dtype)
    return hot @ weight
'''


def test_clamp_given_one_bound_is_said_to_leave_the_other_side(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", CLAMPED_FROM_BELOW_ONLY, "one_hot_lookup")
    assert found and all("only at those it is given" in h and "with `min` alone, values above" in h for h in found)
