"""What the reading of set BG left only observed, each written here another way than its files: an
in-place comparison used for its value on a tensor made on the spot; a power written after the
bracket of the call whose argument it belonged on (never onto a number); and a clamp's bound read as the
other one."""

from __future__ import annotations

from labhelpers import failed_hints

# `gt_` writes into the (1, T) row it is called on: no room for the (T, T) table, and int64 answers
IN_PLACE_COMPARISON = '''
def causal_mask(T):
    return torch.arange(T)[None, :].gt_(torch.arange(T)[:, None])
'''


def test_an_in_place_comparison_on_a_fresh_tensor_is_mended_to_its_twin(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", IN_PLACE_COMPARISON, "causal_mask")
    assert found and all("`gt_` works in place" in h
                         and "`torch.arange(T)[None, :].gt(torch.arange(T)[:, None])` for" in h for h in found)


# the root taken of the divided scores, where the root of the head size was meant
ROOT_AFTER_THE_BRACKET = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = torch.mm(q, k.t()).div(k.shape[-1]) ** 0.5
    T = x.shape[0]
    hidden = torch.ones(T, T).triu(1).bool()
    return scores.masked_fill(hidden, float("-inf")).softmax(-1)
'''


def test_a_power_after_a_calls_bracket_is_moved_onto_its_argument(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", ROOT_AFTER_THE_BRACKET, "attention_weights")
    assert found and all("a bracket closed too early: `** 0.5` stands after the bracket of" in h
                         and "`torch.mm(q, k.t()).div(k.shape[-1] ** 0.5)` for" in h for h in found)


# a running maximum kept with a ceiling (`max=`) where the floor (`min=`) keeps the larger
RUNNING_MAXIMUM = '''
def online_softmax(scores):
    run = scores.new_full(scores.shape[:-1], -math.inf)
    total = torch.zeros_like(run)
    for col in scores.unbind(-1):
        top = torch.clamp(run, {bound}=col)
        total = total * torch.exp(run - top) + torch.exp(col - top)
        run = top
    return torch.exp(scores - run.unsqueeze(-1)) / total.unsqueeze(-1)
'''


def test_a_running_maximum_clamped_with_the_floor_passes(tmp_path):
    right = RUNNING_MAXIMUM.format(bound="min")
    assert failed_hints(tmp_path, "lab-09-flash-attention.py", right, "online_softmax") == []


def test_a_clamps_ceiling_where_its_floor_was_meant_is_mended_to_the_floor(tmp_path):
    ceiling = RUNNING_MAXIMUM.format(bound="max")
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ceiling, "online_softmax")
    assert found and all("the other bound of a clamp: `max=` is a ceiling" in h
                         and "`torch.clamp(run, min=col)` for `torch.clamp(run, max=col)`" in h for h in found)


# the weights squared: the power belongs outside, and put on the axis it reads the same axis by chance
SQUARED_WEIGHTS = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = torch.mm(q, k.t()).div(k.shape[-1] ** 0.5)
    T = x.shape[0]
    hidden = torch.ones(T, T).triu(1).bool()
    return scores.masked_fill(hidden, float("-inf")).softmax(-1) ** 2
'''


def test_a_power_is_never_moved_onto_a_number_inside_the_bracket(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", SQUARED_WEIGHTS, "attention_weights")
    assert found and not any("a bracket closed too early" in h for h in found)
