"""Lab 7's rope_attention: scores that show no rotation are said as what they are, since q and
k turned by one same angle give them too (the angle cancels in every dot product)."""

from __future__ import annotations

from labhelpers import failed_hints

SAME_ANGLE = '''
def rope_attention(q, k, v):
    T, head_size = q.shape[-2], q.shape[-1]
    everywhere = torch.full((T,), 3)  # (T,): every row at position 3, so every row turns alike
    q, k = rope(q, everywhere), rope(k, everywhere)
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_size)
    weights = torch.softmax(scores.masked_fill(hidden_future(T), float("-inf")), dim=-1)
    return weights @ v
'''


def test_q_and_k_turned_by_one_angle_are_not_said_unrotated(tmp_path):
    hints = failed_hints(tmp_path, "lab-07-positions.py", SAME_ANGLE, "rope_attention")
    assert hints and all("turned by one same angle, which cancels" in h for h in hints)
    assert not any(h.startswith("nothing is rotated") for h in hints)
