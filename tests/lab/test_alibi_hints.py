"""Lab 7's alibi_bias: a bias whose penalty lies above the diagonal is said as the reference's
transposed, more than "no penalty" below it (the mask hides what lies above)."""

from __future__ import annotations

from labhelpers import failed_hints


ALIBI_TRANSPOSED = '''
def alibi_bias(T, slope):
    columns, rows = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="ij")
    steps_back = (rows - columns).clamp(min=0).float()
    return -slope * steps_back
'''


def test_an_alibi_bias_with_its_grid_the_other_way_round_is_named_transposed(tmp_path):
    found = failed_hints(tmp_path, "lab-07-positions.py", ALIBI_TRANSPOSED, "alibi_bias")
    assert found and all("the bias is the reference's transposed" in h and "no penalty reaches" not in h for h in found)
