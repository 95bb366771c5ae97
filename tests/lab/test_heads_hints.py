"""Lab 5's multi_head_attention: heads cut as a stride of the columns (every n_heads-th one) are
named by the weights they give, whatever way the code cuts them."""

from __future__ import annotations

from labhelpers import failed_hints

STRIDED_HEADS = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T, d = x.shape
    size = d // n_heads

    def heads(t):  # (T, d) -> (n_heads, T, size): column c goes to head c % n_heads
        return t.view(T, size, n_heads).permute(2, 0, 1)

    q, k, v = heads(query(x)), heads(key(x)), heads(value(x))
    s = torch.einsum("htd,hsd->hts", q, k) / size ** 0.5
    w = s.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
    out = torch.einsum("hts,hsd->thd", w, v).reshape(T, d)
    return proj(out), w
'''


def test_heads_taken_as_a_stride_of_the_columns_are_named_by_their_weights(tmp_path):
    found = failed_hints(tmp_path, "lab-05-multihead.py", STRIDED_HEADS, "multi_head_attention")
    assert found and all(h.startswith("weights: each head must get a block of neighbouring columns") and
                         "every n_heads-th column" in h for h in found)
