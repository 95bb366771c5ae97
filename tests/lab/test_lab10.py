"""Lab 10's judges: a gradient right in float64 passes, right in float32 is named as precision,
and each mistake the lab knows is named by the hint written for it.

The fixtures (tests/fixtures/labs/lab10-*.py) are judged with every lab's in test_checks.py; here,
what is particular to gradients: the float64 tolerance, precision told apart from a formula, and
one fixture for every mistake the lab was written to catch.
"""

from __future__ import annotations

import ast

import pytest
import torch
import torch.nn.functional as F

from attention_by_hand.lab.labs.lab10 import checks as C
from attention_by_hand.lab.registry import get_lab
from labhelpers import FIXTURES_DIR, REFERENCES, expectation, failed_hints, load_lab

LAB10_FIXTURES = sorted(FIXTURES_DIR.glob("lab10-*.py"))


@pytest.fixture(scope="module")
def reference():
    return load_lab(get_lab("10").reference())


def head(T=6, hs=4, d_v=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(2, 2, T, n, generator=g, dtype=torch.float64) for n in (hs, hs, d_v, d_v)]


def autograd(q, k, v, d_out, causal):
    leaves = [t.clone().requires_grad_() for t in (q, k, v)]
    F.scaled_dot_product_attention(*leaves, is_causal=causal).backward(d_out)
    return [t.grad for t in leaves]


# --- the reference's functions against autograd (float64, 1e-12) ----------------------------------


@pytest.mark.parametrize("causal", [False, True])
def test_reference_attention_backward_equals_autograd(reference, causal):
    q, k, v, d_out = head()
    for a, b in zip(reference.attention_backward(q, k, v, d_out, causal), autograd(q, k, v, d_out, causal)):
        assert (a - b).abs().max().item() <= 1e-12


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("T, block", [(7, 3), (12, 4), (5, 8)])
def test_reference_tiled_backward_equals_autograd(reference, causal, T, block):
    q, k, v, d_out = head(T=T, seed=T * block)
    out, lse = reference.forward(q, k, v, causal)
    ours = reference.tiled_attention_backward(q, k, v, out, lse, d_out, block, causal)
    for a, b in zip(ours, autograd(q, k, v, d_out, causal)):
        assert (a - b).abs().max().item() <= 1e-12


def test_reference_softmax_backward_equals_autograd(reference):
    s = torch.randn(3, 7, dtype=torch.float64, requires_grad=True)
    dp = torch.randn(3, 7, dtype=torch.float64)
    (torch.softmax(s, dim=-1) * dp).sum().backward()
    assert (reference.softmax_backward(torch.softmax(s.detach(), dim=-1), dp) - s.grad).abs().max().item() <= 1e-12


# --- float64, float32, a mistake, the unexplained ---------------------------------------------------


def test_a_right_float64_gradient_passes():
    truth = torch.randn(4, 5, dtype=torch.float64)
    assert C.judge_gradient(truth.clone(), truth, "(4, 5)") is None


def test_the_right_gradient_in_float32_is_named_as_precision_not_a_mistake():
    truth = torch.randn(4, 5, dtype=torch.float64)
    miss = C.judge_gradient(truth.float(), truth, "(4, 5)", [(C.NO_D, truth * 2)])
    assert miss.explanations == (C.PRECISION,)
    assert miss.text().startswith("float32 precision, not a wrong formula")


def test_float32_values_returned_as_float64_are_named_as_precision():
    truth = torch.randn(4, 5, dtype=torch.float64)
    assert C.judge_gradient(truth.float().double(), truth, "(4, 5)").explanations == (C.PRECISION,)


def test_a_float64_near_miss_is_said_as_observed_not_as_precision(reference):
    # a central finite difference of step 1e-3: float64 values, off by about 1e-7
    p = torch.softmax(torch.randn(3, 6, dtype=torch.float64), dim=-1)
    dp = torch.randn(3, 6, dtype=torch.float64)
    truth = reference.softmax_backward(p, dp)
    eye = torch.eye(6, dtype=torch.float64)
    loss = lambda s: (torch.softmax(s, dim=-1) * dp).sum(-1)  # (3,) one loss per row
    estimate = torch.stack([(loss(p.log() + 1e-3 * e) - loss(p.log() - 1e-3 * e)) / 2e-3 for e in eye], -1)
    miss = C.judge_gradient(estimate, truth, "(3, 6)")
    assert miss.explanations == ()
    assert "off by at most" in miss.text() and "float32" not in miss.text()


def test_a_wrong_formula_in_float32_is_named_as_the_formula_not_precision():
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, False)
    mistaken = C._whole(q, k, v, d_out, False, "dk_misprint")
    got = [t.float() for t in mistaken]
    miss = C._judge_three(got, right, ("q", "k", "v"), C._WHOLE_MISTAKES, lambda m: C._whole(q, k, v, d_out, False, m))
    assert miss.text() == "dk: " + C.DK_MISPRINT


def test_an_output_off_by_no_known_mistake_is_described_not_diagnosed():
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, True)
    got = [t.clone() for t in right]
    got[1][0, 1, 2, 3] += 0.5
    miss = C._judge_three(got, right, ("q", "k", "v"), C._WHOLE_MISTAKES, lambda m: C._whole(q, k, v, d_out, True, m))
    assert miss.explanations == () and miss.text().startswith("dk: largest difference at [0, 1, 2, 3]")


def test_a_mistake_that_explains_one_gradient_but_not_the_others_is_not_named():
    # every gradient negated: the sign of ds negates dq and dk, but leaves dv as it is
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, False)
    miss = C._judge_three([-t for t in right], right, ("q", "k", "v"), C._WHOLE_MISTAKES,
                          lambda m: C._whole(q, k, v, d_out, False, m))
    assert miss is not None and C.SIGN not in miss.explanations


def test_a_sign_flipped_in_ds_alone_is_still_named():
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, False)
    miss = C._judge_three(C._whole(q, k, v, d_out, False, "sign"), right, ("q", "k", "v"), C._WHOLE_MISTAKES,
                          lambda m: C._whole(q, k, v, d_out, False, m))
    assert miss.text() == "dq: " + C.SIGN


def test_gradients_returned_in_another_order_are_named():
    q, k, v, d_out = head(d_v=4)
    dq, dk, dv = autograd(q, k, v, d_out, False)
    miss = C._judge_three((dk, dq, dv), (dq, dk, dv), ("q", "k", "v"), C._WHOLE_MISTAKES, lambda m: C._whole(q, k, v, d_out, False, m))
    assert miss.text() == C.SWAPPED


def test_a_pair_instead_of_three_gradients_is_named():
    miss = C._judge_three((torch.zeros(1), torch.zeros(1)), None, ("q", "k", "v"), C._WHOLE_MISTAKES, None)
    assert miss.text() == "returned a tuple of 2 items, expected three tensors (dq, dk, dv)"


def test_each_whole_matrix_mistake_differs_from_the_right_answer_on_the_checks_inputs():
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, True)
    for mistake in C._WHOLE_MISTAKES:
        wrong = C._whole(q, k, v, d_out, True, mistake)
        assert max((a - b).abs().max().item() for a, b in zip(wrong, right)) > 1e-3, mistake


# --- one fixture per mistake the lab was written to catch ---------------------------------------------


@pytest.mark.parametrize(
    "hint",
    [C.NO_D, C.P_NOT_TRANSPOSED, C.DK_MISPRINT, C.NO_SCALE, C.SCALE_TWICE, C.MASK_FORGOTTEN, C.D_FROM_DP, C.D_FROM_V, C.LSE_PER_TILE, C.PRECISION],
    ids=["no-D", "P-not-transposed", "dK-misprint", "no-scale", "scale-twice", "mask", "D-from-dp", "D-from-v", "lse-per-tile", "float32"],
)
def test_every_mistake_the_lab_names_has_a_fixture_that_expects_its_hint(hint):
    expected = [expectation(path)[2] for path in LAB10_FIXTURES if expectation(path)[1] == 1]
    assert any(e in hint for e in expected), hint


def test_lab10_has_right_solutions_written_three_other_ways():
    right = [path.stem for path in LAB10_FIXTURES if expectation(path)[1] == 0]
    assert len(right) == 3, right


def test_the_float32_fixture_is_named_as_precision_and_no_formula(tmp_path):
    from attention_by_hand.lab.verdict import check_in_process
    from labhelpers import learner_file

    run = check_in_process(load_lab(learner_file("lab10-tiled-float32.py", tmp_path)), get_lab("10"))
    hints = [r.hint for r in run.results if not r.passed]
    assert hints and all("float32 precision, not a wrong formula" in h for h in hints)
    assert not any(word in h for h in hints for word in ("mask", "-D", "scale", "misprint", "lse"))


def test_a_mistake_made_for_one_gradient_only_is_still_named_there():
    # p left unmasked for dv, masked for ds: dq and dk are right, dv is the forgotten mask's
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, True)
    unmasked = C._whole(q, k, v, d_out, True, "mask")
    miss = C._judge_three((right[0], right[1], unmasked[2]), right, ("q", "k", "v"), C._WHOLE_MISTAKES,
                          lambda m: C._whole(q, k, v, d_out, True, m))
    assert miss.text() == "dv: " + C.MASK_FORGOTTEN


def test_the_scale_left_out_of_dk_alone_is_named_for_dk_not_for_both():
    # dq divided by sqrt(head_size), dk not: "missing from dq and dk" would name a slip not made
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, False)
    unscaled = C._whole(q, k, v, d_out, False, "no_scale")
    miss = C._judge_three((right[0], unscaled[1], right[2]), right, ("q", "k", "v"), C._WHOLE_MISTAKES,
                          lambda m: C._whole(q, k, v, d_out, False, m))
    assert miss.text() == "dk: " + C.DK_UNSCALED


def test_the_scale_left_out_of_both_gradients_is_still_named_for_both():
    q, k, v, d_out = head()
    right = autograd(q, k, v, d_out, True)
    miss = C._judge_three(C._whole(q, k, v, d_out, True, "no_scale"), right, ("q", "k", "v"), C._WHOLE_MISTAKES,
                          lambda m: C._whole(q, k, v, d_out, True, m))
    assert miss.text() == "dq: " + C.NO_SCALE


def _reference_source(name: str) -> str:
    """The reference's own definition of `name`, as its file spells it."""
    text = REFERENCES["lab-10-gradients.py"].read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, node)


# the causal key block's query blocks started one block late: the diagonal tile is skipped. Two
# changes of the reference (its whole tile masked) give the same gradients by another road; one
# change of the learner's own line names what was done
DIAGONAL_SKIPPED = _reference_source("tiled_attention_backward").replace(
    "range(j if causal else 0, T, block)", "range(j + block if causal else 0, T, block)")


def test_a_mend_of_the_learners_line_is_said_before_two_changes_of_the_reference(tmp_path, monkeypatch):
    import attention_by_hand.lab.calls as calls_module
    import attention_by_hand.lab.repair as repair_module

    # the mend is searched within seconds a busy machine may not give it: here the preference is
    # tested, not the budget, so the search gets all the time it needs
    monkeypatch.setattr(calls_module, "MEND_AFTER", 1e9)
    monkeypatch.setattr(repair_module, "SECONDS", 1e9)
    assert "j + block if causal" in DIAGONAL_SKIPPED
    hints = failed_hints(tmp_path, "lab-10-gradients.py", DIAGONAL_SKIPPED, "tiled_attention_backward")
    assert hints and all("a term too many (`block`)" in h and "yours equals the reference with" not in h for h in hints)


KEYS_MASKED_AS_CAUSAL_TOO = '''
def attention_backward(q, k, v, d_out, causal=False):
    size = q.shape[-1]
    T = q.shape[-2]
    later = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    s = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(size)
    if causal:
        s = s.masked_fill(later, float("-inf"))
    p = s.softmax(dim=-1)
    dv = torch.einsum("...ij,...id->...jd", p, d_out)
    dp = torch.einsum("...id,...jd->...ij", d_out, v)
    ds = p * (dp - (p * dp).sum(dim=-1, keepdim=True))
    dq = torch.einsum("...ij,...jd->...id", ds, k) / math.sqrt(size)
    from_queries = ds.transpose(-2, -1)
    if causal:
        from_queries = from_queries.masked_fill(later, 0.0)
    dk = torch.einsum("...ji,...id->...jd", from_queries, q) / math.sqrt(size)
    return dq, dk, dv
'''


def test_a_value_related_to_an_argument_claims_nothing_of_the_references_rows(tmp_path):
    # each row of this dk is q's row times a factor, but the reference's dk rows are no such rows:
    # the relation is said of `q`, without the words that hold only of the reference's rows
    found = failed_hints(tmp_path, "lab-10-gradients.py", KEYS_MASKED_AS_CAUSAL_TOO, "attention_backward")
    causal = [h for h in found if "`q`'s row times a factor of its own" in h]
    assert causal and not any("proportions within each row are right" in h for h in found)
