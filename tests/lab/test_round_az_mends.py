"""What the reading of set BI left only observed, each written here another way than its files: a softmax
where a row's sum was meant; a minus sign inside a log; a trailing comma that makes a tuple of one; an
assignment the wrong way round; one cell written where every cell from there on was meant; and no hedge
on a helper the lab gives, left as it is."""

from __future__ import annotations

from labhelpers import failed_hints

LAB02, LAB03, LAB04, LAB07 = ("lab-02-embeddings-softmax.py", "lab-03-bigram.py", "lab-04-attention.py",
                              "lab-07-positions.py")

# probabilities from counts through a softmax: exp(count) / sum(exp(count))
SOFTMAX_OF_COUNTS = '''
def counts_to_probs(counts, smoothing=1.0):
    return F.softmax(counts + smoothing, dim=-1)
'''


def test_what_softmax_does_to_counts_is_said(tmp_path):
    found = failed_hints(tmp_path, LAB03, SOFTMAX_OF_COUNTS, "counts_to_probs")
    assert found and all("`softmax`, which the reference does not call, takes the exp of each entry" in h for h in found)


# the loss's minus sign put inside the log: the log of a negative number
MINUS_IN_THE_LOG = '''
def average_nll(probs, ids):
    return torch.mean(torch.log(-probs[ids[:-1], ids[1:]]))
'''


def test_a_minus_sign_inside_a_log_is_moved_outside(tmp_path):
    found = failed_hints(tmp_path, LAB03, MINUS_IN_THE_LOG, "average_nll")
    assert found and all("the minus sign inside `log(...)`" in h
                         and "`-torch.log(probs[ids[:-1], ids[1:]])` for `torch.log(-probs[ids[:-1], ids[1:]])`" in h
                         for h in found)


# a trailing comma on an assignment: the weights become a tuple of one
COMMA_AFTER_THE_WEIGHTS = '''
def softmax(scores):
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    out = e / e.sum(dim=-1, keepdim=True),
    return out
'''


def test_a_trailing_comma_is_taken_away(tmp_path):
    found = failed_hints(tmp_path, LAB02, COMMA_AFTER_THE_WEIGHTS, "softmax")
    assert found and all("a trailing comma: `(e / e.sum(dim=-1, keepdim=True),)` is a TUPLE of one item" in h for h in found)


# the previous character never carried on: `cur = prev` where `prev = cur` was meant
PREVIOUS_NEVER_MOVED = '''
def bigram_counts(ids, vocab_size):
    counts = torch.zeros(vocab_size, vocab_size)
    prev = ids[0]
    for cur in ids[1:]:
        counts[prev, cur] += 1
        cur = prev
    return counts
'''


def test_an_assignment_the_wrong_way_round_is_turned(tmp_path):
    found = failed_hints(tmp_path, LAB03, PREVIOUS_NEVER_MOVED, "bigram_counts")
    assert found and all("the assignment the wrong way round: `cur = prev`" in h and "with `prev = cur` for `cur = prev`" in h
                         for h in found)


# each row hides only the cell right of the diagonal, not every cell from there on
ONE_CELL_PER_ROW = '''
def causal_mask(T):
    hidden = torch.zeros((T, T), dtype=torch.bool)
    for row in range(T - 1):
        hidden[row, row + 1] = True
    return hidden
'''


def test_one_cell_written_where_a_run_was_meant_gets_its_colon(tmp_path):
    found = failed_hints(tmp_path, LAB04, ONE_CELL_PER_ROW, "causal_mask")
    assert found and all("one cell where a run of cells was meant" in h and "with `hidden[row, row + 1:]` for" in h
                         for h in found)


# the log of the weights blended, on the line that calls the lab's own `hidden_future`
LOG_WEIGHTS = '''
def rope_attention(q, k, v):
    T = q.shape[-2]
    where = torch.arange(T)
    s = rope(q, where) @ rope(k, where).transpose(-2, -1) * q.shape[-1] ** -0.5
    w = torch.log_softmax(s.masked_fill(hidden_future(T), -math.inf), dim=-1)
    return w @ v
'''


def test_a_helper_the_lab_gives_left_as_it_is_is_never_suspected(tmp_path):
    found = failed_hints(tmp_path, LAB07, LOG_WEIGHTS, "rope_attention")
    assert found and not any("the mistake may be in there" in h for h in found)


# the same line, with the lab's helper changed by the learner: it may hold the slip, and is named
CHANGED_HELPER = LOG_WEIGHTS + '''

def hidden_future(T):
    return torch.ones(T, T, dtype=torch.bool).triu(diagonal=1) & (torch.arange(T) >= 0)
'''


def test_a_helper_the_learner_changed_is_still_suspected(tmp_path):
    found = failed_hints(tmp_path, LAB07, CHANGED_HELPER, "rope_attention")
    assert any("it calls your `hidden_future`: the mistake may be in there" in h for h in found)


# `*grads,` makes a tuple of the list's items on purpose; the slip is the factor on dv, which is still said
STARRED_RETURN = '''
def attention_backward(q, k, v, d_out, causal):
    scale = q.shape[-1] ** -0.5
    s = q @ k.transpose(-2, -1) * scale
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-1], s.shape[-1], dtype=torch.bool).triu(1), -math.inf)
    p = s.softmax(dim=-1)
    ds = softmax_backward(p, d_out @ v.transpose(-2, -1))
    grads = [ds @ k * scale, ds.transpose(-2, -1) @ q * scale, p.transpose(-2, -1) @ d_out * 2.0]
    return *grads,
'''


def test_a_starred_tuple_of_one_is_no_trailing_comma_and_the_real_mend_is_said(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", STARRED_RETURN, "attention_backward")
    assert found and all("with `* 2.0` removed from" in h and "trailing comma" not in h for h in found)


# the rates by an exp and a log, the minus sign inside math.log: a ValueError, not a nan
MINUS_IN_MATH_LOG = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    rates = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (math.log(-base) / d_model))
    angles = torch.arange(n_positions, dtype=torch.float32)[:, None] * rates
    return torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(n_positions, d_model)
'''


def test_the_words_for_a_minus_inside_maths_log_say_it_raises(tmp_path):
    found = failed_hints(tmp_path, LAB07, MINUS_IN_MATH_LOG, "sinusoidal_table")
    assert found and all("`math` raises a ValueError" in h and "`-math.log(base)` for `math.log(-base)`" in h for h in found)


# the lab's helper left as written, then rebound below it to another mask: the name no longer stands for the def
REBOUND_HELPER = LOG_WEIGHTS + '''

hidden_future = lambda T: torch.ones(T, T, dtype=torch.bool).triu(diagonal=2)
'''


def test_a_given_helper_rebound_below_its_def_is_still_suspected(tmp_path):
    found = failed_hints(tmp_path, LAB07, REBOUND_HELPER, "rope_attention")
    assert any("it calls your `hidden_future`: the mistake may be in there" in h for h in found)
