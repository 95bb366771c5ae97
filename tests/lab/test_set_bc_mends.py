"""What the reader of set BC found, read after it was reported, each written here another way than set
BC's file: a root typed as a product (`* -0.5` for `** -0.5`), `sinc` typed for `sin`, a cast given to a
mask call said as a cast, not as two steps in the wrong order, and a layer's weight read for its output. And
what a review of those found: a cast given to a call that needs integers is still said as the order it is,
and a norm's weight gets no words of a matrix."""

from __future__ import annotations

from labhelpers import failed_hints


# the scale's inverse root typed as a product: `*` one key short of `**`
INVERSE_ROOT_AS_PRODUCT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    scores = torch.matmul(q, k.T) * k.size(-1) * -0.5
    scores = scores.masked_fill(causal_mask(x.size(0)), float("-inf"))
    return scores.softmax(dim=-1)
'''


def test_a_root_typed_as_a_product_is_mended_to_a_power(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", INVERSE_ROOT_AS_PRODUCT, "attention_weights")
    assert found and all("`torch.matmul(q, k.T) * k.size(-1) ** (-0.5)` for `torch.matmul(q, k.T) * k.size(-1) * -0.5`" in h
                         and "a root is a POWER" in h for h in found)


# the sines' columns filled with the method `sinc`, the sine's neighbour in the completion list
SINC_FOR_SIN = '''
def sinusoidal_table(n_positions, d_model, base=10000.0):
    p = torch.arange(n_positions).float().unsqueeze(1)
    speed = base ** (-torch.arange(0, d_model, 2).float() / d_model)
    out = torch.empty(n_positions, d_model)
    out[:, ::2] = (p * speed).sinc()
    out[:, 1::2] = (p * speed).cos()
    return out
'''


def test_sinc_typed_for_sin_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", SINC_FOR_SIN, "sinusoidal_table")
    assert found and all("`sin(...)` for `sinc(...)`" in h and "the normalised sinc" in h for h in found)


# a mask cast to floats before the fill: masked_fill wants bools, and no order of the two steps is at fault
MASK_CAST_TO_FLOAT = '''
def attention_weights(x, query, key):
    q, k = query(x), key(x)
    s = q @ k.transpose(0, 1) / math.sqrt(k.shape[1])
    s = s.masked_fill(causal_mask(len(x)).to(torch.float32), -math.inf)
    return torch.softmax(s, dim=1)
'''


def test_a_cast_given_to_a_mask_call_is_not_called_a_wrong_order(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", MASK_CAST_TO_FLOAT, "attention_weights")
    assert found and all("a mask must be a bool tensor" in h and "wrong order" not in h for h in found)


# the queries taken as the query layer's weight, not as what it makes of x
QUERY_AS_WEIGHT = '''
def attention_weights(x, query, key):
    q, k = query.weight, key(x)
    s = (k @ q.T).T / math.sqrt(q.shape[1])
    s = s.masked_fill(causal_mask(x.shape[0]), float("-inf"))
    return s.softmax(-1)
'''


def test_a_layers_weight_read_for_its_output_is_named(tmp_path):
    found = failed_hints(tmp_path, "lab-04-attention.py", QUERY_AS_WEIGHT, "attention_weights")
    assert found and all("`query(x)` for `query.weight`" in h and "is a parameter of the layer" in h for h in found)


# one_hot given float ids: here the order of the two steps is the slip (cast the one-hot rows, not the ids)
ONE_HOT_OF_FLOAT_IDS = '''
def one_hot_lookup(ids, weight):
    return torch.matmul(F.one_hot(ids.float(), weight.shape[0]), weight)
'''


def test_a_cast_given_to_a_call_that_needs_integers_is_still_said_as_an_order(tmp_path):
    found = failed_hints(tmp_path, "lab-02-embeddings-softmax.py", ONE_HOT_OF_FLOAT_IDS, "one_hot_lookup")
    assert found and all("two steps in the wrong order" in h and "`F.one_hot(ids, weight.shape[0]).float()` for" in h
                         for h in found)


# the norm's scales fed to the attention branch where the normed stream belongs
NORM_WEIGHT_FED = '''
def block_forward(x, ln1, attn, ln2, mlp):
    x = x + attn(ln1.weight)
    return x + mlp(ln2(x))
'''


def test_a_norms_weight_read_for_its_output_gets_no_words_of_a_matrix(tmp_path):
    found = failed_hints(tmp_path, "lab-06-transformer.py", NORM_WEIGHT_FED, "block_forward")
    assert found and all("`ln1(x)` for `ln1.weight`" in h and "a parameter of the layer" in h and "out_features" not in h
                         for h in found)
