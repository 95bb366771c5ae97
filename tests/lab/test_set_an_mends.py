"""Mistakes of the kinds the retired set AN held, each written here another way than set AN's file: an
output never written, whose zeros the reference's gradient averages to; a name of another shape
handed to a helper, where the call raised of sizes; a tensor unpacked along its first axis; and a
`[0]` that keeps one row's maximum for all, whose overflow the catalogue took for exp of a raw score."""

from __future__ import annotations

from labhelpers import failed_hints

# dk's tile added into a new name, never into dk: dk stays zeros, and the reference's dk, whose
# rows sum to zero over the keys, averages to zeros over them too
DK_NEVER_WRITTEN = '''
def tiled_attention_backward(q, k, v, out, lse, d_out, block, causal):
    n = q.shape[-2]
    scale = q.shape[-1] ** -0.5
    D = (d_out * out).sum(-1)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    for a in range(0, n, block):
        for b in range(0, n, block):
            if causal and a > b + block - 1:
                continue
            s = q[..., b:b + block, :] @ k[..., a:a + block, :].mT * scale
            if causal:
                s = s.masked_fill(torch.arange(a, a + s.shape[-1])[None, :] > torch.arange(b, b + s.shape[-2])[:, None], float("-inf"))
            p = torch.exp(s - lse[..., b:b + block, None])
            dv[..., a:a + block, :] += p.mT @ d_out[..., b:b + block, :]
            ds = p * (d_out[..., b:b + block, :] @ v[..., a:a + block, :].mT - D[..., b:b + block, None])
            dq[..., b:b + block, :] += ds @ k[..., a:a + block, :] * scale
            dk_tile = dk[..., a:a + block, :] + ds.mT @ q[..., b:b + block, :] * scale
    return dq, dk, dv
'''


def test_an_output_of_zeros_is_not_said_to_be_the_references_average(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", DK_NEVER_WRITTEN, "tiled_attention_backward")
    assert found and all("averaged over" not in h and "yours is all zeros" in h for h in found)


# the values' gradient handed to softmax_backward where the weights' belongs: a size error inside it
VALUES_GRADIENT_FOR_THE_WEIGHTS = '''
def attention_backward(q, k, v, d_out, causal):
    n, width = q.shape[-2], q.shape[-1]
    root = width ** 0.5
    kt = k.transpose(-1, -2)
    s = q @ kt / root
    if causal:
        rows = torch.arange(n).unsqueeze(1)
        cols = torch.arange(n).unsqueeze(0)
        s = s.masked_fill(cols > rows, float("-inf"))
    top = s.amax(dim=-1, keepdim=True)
    w = (s - top).exp()
    total = w.sum(dim=-1, keepdim=True)
    p = w / total
    pt = p.transpose(-1, -2)
    dv = pt @ d_out
    vt = v.transpose(-1, -2)
    dp = d_out @ vt
    ds = softmax_backward(p, dv)
    dq = ds @ k / root
    dst = ds.transpose(-1, -2)
    dk = dst @ q / root
    return dq, dk, dv
'''


def test_a_name_of_another_shape_is_tried_first_on_the_line_that_raised(tmp_path):
    found = failed_hints(tmp_path, "lab-10-gradients.py", VALUES_GRADIENT_FOR_THE_WEIGHTS, "attention_backward")
    assert found and all("`... dp)` for `... dv)`" in h or "`softmax_backward(p, dp)`" in h for h in found)


# the two halves unpacked from a (..., T, 2, d/2) tensor: unpacking walks the tokens
HALVES_UNPACKED_ALONG_THE_TOKENS = '''
def rope(x, positions, base=10000.0):
    half = x.shape[-1] // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float32) / x.shape[-1])
    angles = positions.float()[:, None] * theta
    halves = x.unflatten(-1, (2, half))
    x1, x2 = halves
    return torch.cat([x1 * angles.cos() - x2 * angles.sin(), x1 * angles.sin() + x2 * angles.cos()], dim=-1)
'''


def test_a_tensor_unpacked_along_its_first_axis_is_unpacked_along_another(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", HALVES_UNPACKED_ALONG_THE_TOKENS, "rope")
    assert found and all("unpacking a tensor walks its FIRST axis" in h and "`halves.unbind(-2)` for `halves`" in h
                         for h in found)


# `[0]` after fmax, as if it returned (values, indices): the first row's maximum kept for every row
ONE_MAXIMUM_FOR_ALL_ROWS = '''
def online_softmax(scores):
    m = torch.full(scores.shape[:-1], float("-inf"))
    l = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        s = scores[..., j]
        m_new = s.fmax(m)[0]
        l = l * torch.exp(m - m_new) + torch.exp(s - m_new)
        m = m_new
    return torch.exp(scores - m[..., None]) / l[..., None]
'''


def test_a_catalogued_overflow_gives_way_to_the_learners_own_mend(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", ONE_MAXIMUM_FOR_ALL_ROWS, "online_softmax")
    assert found and all("exp is taken of a raw score" not in h and "with `s.fmax(m)` for `s.fmax(m)[0]`" in h for h in found)
