# patches: lab-09-flash-attention.py
"""tiled_attention takes each tile's maximum over the queries (dim=-2), not over the keys."""


def tiled_attention(q, k, v, block, causal):
    T_q, T_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs, lses = [], []
    for i in range(0, T_q, block):
        qb = q[..., i : i + block, :]
        m = torch.full(qb.shape[:-1], float("-inf"), dtype=q.dtype)
        l = torch.zeros(qb.shape[:-1], dtype=q.dtype)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype)
        stop = min(i + qb.shape[-2], T_k) if causal else T_k
        for j in range(0, stop, block):
            s = qb @ k[..., j : j + block, :].transpose(-2, -1) * scale
            if causal and j == i:
                r = torch.arange(i, i + s.shape[-2])[:, None]
                c = torch.arange(j, j + s.shape[-1])[None, :]
                s = s.masked_fill(c > r, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-2))
            p = torch.exp(s - m_new[..., None])
            alpha = torch.exp(m - m_new)
            l = alpha * l + p.sum(dim=-1)
            acc = alpha[..., None] * acc + p @ v[..., j : j + block, :]
            m = m_new
        outs.append(acc / l[..., None])
        lses.append(m + torch.log(l))
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
