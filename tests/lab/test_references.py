"""The reference labs themselves: each runs as a script and passes its self-check, a learner's
untouched version stops at its first unwritten function, a Python without torch gets one line,
and the hand-written functions agree with PyTorch.

Tolerances: float64 inputs on both sides (1e-12) where the lab function is dtype-agnostic, so
only the summation order can differ; float32 (1e-6) where the lab fixes float32 itself.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_by_hand.lab.exercise import learner_source
from attention_by_hand.lab.registry import LABS, lab_numbered
from attention_by_hand.run.world import RIVER_BANK
from labhelpers import ROOT, learner_file, load_lab
from patience import HUNG

pytestmark = pytest.mark.slow  # many seconds in all: starts first (tests/conftest.py)

NUMBERS = [lab.number for lab in LABS]
TOL64 = 1e-12


def reference_path(number: int):
    return lab_numbered(number).reference()


def write_exercise(folder, number: int):
    """The learner's untouched version of lab `number`, written into `folder`."""
    lab = lab_numbered(number)
    path = folder / lab.filename
    path.write_text(learner_source(reference_path(number).read_text(encoding="utf-8"), lab), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ref():
    """number -> the reference lab, imported by path (its steps do not run)."""
    return {n: load_lab(reference_path(n)) for n in NUMBERS}


@pytest.fixture(scope="module")
def script_runs(tmp_path_factory):
    """Every lab and every exercise run once as a script (lab 06 with --quick), a few at a time."""
    out = tmp_path_factory.mktemp("lab-out")
    exercises = tmp_path_factory.mktemp("exercises")

    def run(job):
        kind, lab = job
        path = reference_path(lab.number) if kind == "lab" else write_exercise(exercises, lab.number)
        extra = ["--quick", "--out", str(out)] if lab.number == 6 else ["--quick"] if lab.number == 7 else []
        done = subprocess.run(
            [sys.executable, str(path), *extra], cwd=ROOT, capture_output=True, text=True, timeout=HUNG
        )
        return job, done

    # The learner's versions of two labs are enough to show that a version runs to its first
    # unwritten function: they are generated the same way for every lab (tests/lab/test_exercise.py).
    jobs = [("lab", lab) for lab in LABS] + [("exercise", LABS[0]), ("exercise", LABS[3])]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = dict(pool.map(run, jobs))
    return {(kind, lab.number): done for (kind, lab), done in results.items()}, out


# --- every lab runs and checks itself --------------------------------------------------------


@pytest.mark.parametrize("number", NUMBERS)
def test_every_lab_runs_and_ends_with_a_passing_self_check(script_runs, number):
    done = script_runs[0][("lab", number)]
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("SELF-CHECK: PASS: ")
    assert done.stderr == ""


@pytest.mark.parametrize("number", NUMBERS)
def test_every_lab_numbers_its_steps_1_2_3_in_order(script_runs, number):
    out = script_runs[0][("lab", number)].stdout
    steps = [int(n) for n in re.findall(r"^STEP (\d+): ", out, re.M)]
    assert steps == list(range(1, len(steps) + 1)) and len(steps) >= 5


def test_lab06_quick_schedule_still_reaches_the_accuracy(script_runs):
    out = script_runs[0][("lab", 6)].stdout
    accuracy = float(re.search(r"held-out accuracy on the repeated half: ([\d.]+)", out).group(1))
    steps = int(re.search(r"^STEP 4: trained (\d+) steps", out, re.M).group(1))
    assert accuracy >= 0.95 and steps == load_lab(reference_path(6)).Config().quick_steps


def test_lab06_draws_the_copying_head_into_the_folder_it_prints(script_runs):
    _, out_dir = script_runs
    figure = out_dir / "lab-06-copy-head.png"
    assert f"wrote {figure}" in script_runs[0][("lab", 6)].stdout
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in out_dir.iterdir()] == ["lab-06-copy-head.png"]  # no temporary file left


def test_a_lab_whose_invariant_breaks_says_which_and_exits_1(tmp_path):
    # A learner's lab 04 with the mask on the wrong side, run as a script.
    mistaken = learner_file("lab04-mask-wrong-side.py", tmp_path)
    done = subprocess.run([sys.executable, str(mistaken)], cwd=ROOT, capture_output=True, text=True, timeout=HUNG)
    last = done.stdout.splitlines()[-1]
    assert done.returncode == 1 and last.startswith("SELF-CHECK: FAIL: ") and "no weight on a future token" in last


@pytest.mark.parametrize("number", [1, 4])
def test_a_learner_version_runs_until_its_first_unwritten_function_and_names_it(script_runs, number):
    done = script_runs[0][("exercise", number)]
    assert done.returncode == 1
    assert re.fullmatch(r"NOT WRITTEN YET: \w+\(\): .+\n", done.stderr), done.stderr
    assert "STEP 1: " in done.stdout


# --- the labs' own data ----------------------------------------------------------------------


@pytest.mark.parametrize("number", [1, 2])
def test_the_labs_toy_world_is_the_canonical_world(ref, number):
    lab = ref[number]
    assert lab.VOCABULARY == RIVER_BANK.words
    assert lab.EMBEDDINGS == [list(RIVER_BANK.embeddings[w]) for w in RIVER_BANK.words]


def test_lab01_axes_are_the_canonical_axes(ref):
    assert ref[1].AXES == list(RIVER_BANK.axes)


def test_lab03_learns_from_its_own_text_wherever_it_runs(ref):
    assert len(ref[3].clean(ref[3].TEXT)) > 300


def test_a_lab_run_by_a_python_without_torch_says_so_in_one_line(tmp_path):
    # -S: no site-packages, as a system Python outside the venv has none of the workshop's.
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(reference_path(4))], cwd=tmp_path, capture_output=True, text=True, timeout=HUNG
    )
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "needs PyTorch" in done.stderr and "lab run 4" in done.stderr


# --- the hand-written functions against PyTorch -----------------------------------------------


def _double(g, *shape):
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _linear64(g, d_in, d_out):
    layer = nn.Linear(d_in, d_out, bias=False).double()
    with torch.no_grad():
        layer.weight.copy_(_double(g, d_out, d_in) / math.sqrt(d_in))
    return layer


@pytest.mark.parametrize("seed", range(4))
def test_lab01_matmul_by_loops_equals_the_at_operator(ref, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = _double(g, 3 + seed, 5), _double(g, 5, 2 + seed)
    assert torch.allclose(ref[1].matmul_by_loops(a, b), a @ b, atol=TOL64, rtol=0)
    assert torch.allclose(ref[1].dot(a[0], b[:, 0]), torch.dot(a[0], b[:, 0]), atol=TOL64, rtol=0)


@pytest.mark.parametrize("seed", range(4))
def test_lab02_softmax_equals_torch_softmax_even_on_huge_scores(ref, seed):
    g = torch.Generator().manual_seed(seed)
    scores = _double(g, 4, 6) * 10**seed  # up to thousands: exp(1000) overflows float64 too
    assert torch.allclose(ref[2].softmax(scores), torch.softmax(scores, dim=-1), atol=TOL64, rtol=0)


def test_lab02_softmax_in_float32_matches_within_1e_6(ref):
    scores = torch.tensor([[1000.0, 1001.0, 1002.0], [0.0, float("-inf"), 1.0]])
    assert torch.allclose(ref[2].softmax(scores), torch.softmax(scores, dim=-1), atol=1e-6, rtol=0)


def test_lab02_one_hot_lookup_equals_nn_embedding(ref):
    table = nn.Embedding(6, 3)
    ids = torch.tensor([5, 0, 0, 2])
    with torch.no_grad():
        assert torch.equal(ref[2].one_hot_lookup(ids, table.weight), table(ids))


def test_lab03_average_nll_equals_torch_cross_entropy_of_the_log_table(ref):
    g = torch.Generator().manual_seed(3)
    ids = torch.randint(0, 6, (300,), generator=g)
    probs = ref[3].counts_to_probs(ref[3].bigram_counts(ids, 6)).double()  # (6, 6)
    expected = F.nll_loss(probs.log()[ids[:-1]], ids[1:])
    assert abs(ref[3].average_nll(probs, ids).item() - expected.item()) < TOL64


def test_lab03_bigram_counts_equal_a_plain_loop(ref):
    ids = torch.randint(0, 5, (200,), generator=torch.Generator().manual_seed(4))
    loop = torch.zeros(5, 5)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        loop[a, b] += 1
    assert torch.equal(ref[3].bigram_counts(ids, 5), loop)


@pytest.mark.parametrize("seed", range(4))
def test_lab04_self_attention_equals_scaled_dot_product_attention(ref, seed):
    g = torch.Generator().manual_seed(seed)
    T, d_model, head_size = 2 + seed, 8, 2 + seed
    x, query, key, value = _double(g, T, d_model), *(_linear64(g, d_model, head_size) for _ in range(3))
    with torch.no_grad():
        out, weights = ref[4].self_attention(x, query, key, value)
        expected = F.scaled_dot_product_attention(query(x), key(x), value(x), is_causal=True)
    assert torch.allclose(out, expected, atol=TOL64, rtol=0)
    assert torch.equal(ref[4].causal_mask(T), ~torch.tril(torch.ones(T, T, dtype=torch.bool)))


@pytest.mark.parametrize("seed", range(3))
def test_lab05_multi_head_attention_equals_torch_multihead_attention(ref, seed):
    g = torch.Generator().manual_seed(seed)
    T, d_model, n_heads = 3 + seed, 12, 3
    x = _double(g, T, d_model)
    query, key, value, proj = (_linear64(g, d_model, d_model) for _ in range(4))
    mha = nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([query.weight, key.weight, value.weight]))
        mha.out_proj.weight.copy_(proj.weight)
        hidden = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        expected, expected_weights = mha(x[None], x[None], x[None], attn_mask=hidden, average_attn_weights=False)
        out, weights = ref[5].multi_head_attention(x, query, key, value, proj, n_heads)
    assert torch.allclose(out, expected[0], atol=TOL64, rtol=0)
    assert torch.allclose(weights, expected_weights[0], atol=TOL64, rtol=0)


def test_lab05_merge_heads_undoes_split_heads(ref):
    t = torch.randn(7, 12)
    assert torch.equal(ref[5].merge_heads(ref[5].split_heads(t, 3)), t)


@pytest.mark.parametrize("shape", [(5, 8), (2, 3, 16)])
def test_lab06_layer_norm_equals_torch_layer_norm(ref, shape):
    g = torch.Generator().manual_seed(6)
    x, weight, bias = _double(g, *shape), _double(g, shape[-1]), _double(g, shape[-1])
    expected = F.layer_norm(x, (shape[-1],), weight, bias, eps=1e-5)
    assert torch.allclose(ref[6].layer_norm(x, weight, bias), expected, atol=TOL64, rtol=0)


def test_lab06_attention_module_equals_scaled_dot_product_attention(ref):
    lab = ref[6]
    config = lab.Config()
    torch.manual_seed(0)
    attention = lab.CausalSelfAttention(config)
    x = torch.randn(3, config.context, config.d_model)
    with torch.no_grad():
        q, k, v = attention.qkv(x).split(config.d_model, dim=-1)
        heads = [t.view(3, config.context, config.n_heads, -1).transpose(1, 2) for t in (q, k, v)]
        expected = attention.proj(
            F.scaled_dot_product_attention(*heads, is_causal=True).transpose(1, 2).reshape(x.shape)
        )
        assert torch.allclose(attention(x), expected, atol=1e-6, rtol=0)  # float32, as the lab trains


def test_lab06_copy_batches_repeat_their_first_half(ref):
    lab = ref[6]
    config = lab.Config()
    inputs, targets = lab.copy_batch(config, 5, torch.Generator().manual_seed(0))
    sequences = torch.cat([inputs, targets[:, -1:]], dim=1)  # (5, 2 half)
    assert torch.equal(sequences[:, : config.half], sequences[:, config.half :])
    assert torch.equal(inputs[:, 1:], targets[:, :-1])


# --- labs 07-09 against PyTorch and an independent formula -------------------------------------


def test_lab07_sinusoidal_table_equals_a_loop_of_sin_and_cos(ref):
    table = ref[7].sinusoidal_table(9, 6, base=100.0)
    for p in range(9):
        for i in range(3):
            angle = p / 100.0 ** (2 * i / 6)
            assert abs(table[p, 2 * i].item() - math.sin(angle)) < 1e-6  # float32, as the lab builds it
            assert abs(table[p, 2 * i + 1].item() - math.cos(angle)) < 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_lab07_rope_equals_complex_multiplication_on_the_halves(ref, seed):
    g = torch.Generator().manual_seed(seed)
    x, positions = torch.randn(5, 8, generator=g), torch.tensor([0, 3, 1, 7, 2])
    theta = 10000.0 ** (-torch.arange(4, dtype=torch.float64) * 2 / 8)
    z = torch.complex(x[:, :4].double(), x[:, 4:].double()) * torch.exp(1j * positions[:, None].double() * theta)
    expected = torch.cat([z.real, z.imag], dim=-1)
    assert torch.allclose(ref[7].rope(x, positions).double(), expected, atol=1e-5, rtol=0)  # float32 angles


def test_lab07_rope_scores_depend_only_on_the_distance(ref):
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 8, generator=g), torch.randn(1, 8, generator=g)
    scores = [
        (ref[7].rope(q, torch.tensor([m + s])) @ ref[7].rope(k, torch.tensor([n + s])).T).item()
        for m, n, s in ((5, 2, 0), (5, 2, 9), (5, 2, 40))
    ]
    assert max(scores) - min(scores) < 1e-4  # float32 angles of up to 45 radians


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("T, block", [(7, 4), (13, 4), (10, 3), (16, 16)])
def test_lab09_tiled_attention_equals_sdpa_and_logsumexp(ref, causal, T, block):
    g = torch.Generator().manual_seed(T * block)
    q, k, v = (torch.randn(2, T, 8, generator=g, dtype=torch.float64) for _ in range(3))
    out, lse = ref[9].tiled_attention(q, k, v, block, causal)
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    if causal:
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, is_causal=causal), atol=1e-12, rtol=0)
    assert torch.allclose(lse, torch.logsumexp(scores, dim=-1), atol=1e-12, rtol=0)


def test_lab09_online_softmax_equals_torch_softmax_on_growing_scores(ref):
    scores = torch.tensor([[1.0, 3.0, 2.0, 6.0, 6.0, -2.0], [300.0, -100.0, 250.0, 310.0, 0.0, 305.0]], dtype=torch.float64)
    assert torch.allclose(ref[9].online_softmax(scores), torch.softmax(scores, dim=-1), atol=1e-12, rtol=0)


def test_lab08_decoding_with_the_cache_equals_the_uncached_model(ref):
    lab = ref[8]
    config = lab.Config()
    torch.manual_seed(0)
    model = lab.TinyTransformer(config).eval()
    T = min(9, config.context)
    tokens = torch.randint(0, config.vocab_size, (2, T), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        whole = model(tokens)  # (2, T, vocab): every position at once, no cache
        caches = [lab.empty_cache(2, config) for _ in range(config.n_blocks)]
        steps = []
        for position in range(T):
            logits, caches = model.forward_cached(tokens[:, position : position + 1], caches, position)
            steps.append(logits)
    assert torch.allclose(torch.cat(steps, dim=1), whole, atol=1e-5, rtol=0)  # float32, summed in other orders
    assert caches[0][0].shape == (2, config.n_heads, T, config.head_size)
