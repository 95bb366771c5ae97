"""The six labs: each runs and passes its self-check, its exercise shares its structure, its
hand-written functions agree with PyTorch, and `lab list | run | notebook` do what --help says.

Tolerances: float64 inputs on both sides (1e-12) where the lab function is dtype-agnostic, so
only the summation order can differ; float32 (1e-6) where the lab fixes float32 itself.
"""

from __future__ import annotations

import ast
import json
import math
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_by_hand import labs as labs_module
from attention_by_hand.labjudge import _TOY_TABLE, _TOY_VOCABULARY, checks_for
from attention_by_hand.labs import LABS, notebook_text
from attention_by_hand.world import RIVER_BANK
from labhelpers import LABS_DIR, ROOT, lab_main, learner_file, load_lab

NUMBERS = [lab.number for lab in LABS]
TOL64 = 1e-12


def reference_path(number: int):
    return LABS_DIR / LABS[number - 1].filename


def exercise_path(number: int):
    return LABS_DIR / "exercises" / LABS[number - 1].filename


@pytest.fixture(scope="module")
def ref():
    """number -> the reference lab, imported by path (its steps do not run)."""
    return {n: load_lab(reference_path(n)) for n in NUMBERS}


@pytest.fixture(scope="module")
def script_runs(tmp_path_factory):
    """Every lab and every exercise run once as a script (lab 06 with --quick), a few at a time."""
    out = tmp_path_factory.mktemp("lab-out")

    def run(job):
        kind, lab = job
        path = reference_path(lab.number) if kind == "lab" else exercise_path(lab.number)
        extra = [*lab.quick, "--out", str(out)] if lab.number == 6 else []
        done = subprocess.run(
            [sys.executable, str(path), *extra], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        return job, done

    jobs = [(kind, lab) for kind in ("lab", "exercise") for lab in LABS]
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
    done = subprocess.run([sys.executable, str(mistaken)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    last = done.stdout.splitlines()[-1]
    assert done.returncode == 1 and last.startswith("SELF-CHECK: FAIL: ") and "no weight on a future token" in last


@pytest.mark.parametrize("number", NUMBERS)
def test_an_exercise_runs_until_its_first_unwritten_function_and_names_it(script_runs, number):
    done = script_runs[0][("exercise", number)]
    assert done.returncode == 1
    assert re.fullmatch(r"NOT WRITTEN YET: \w+\(\): .+\n", done.stderr), done.stderr
    assert "STEP 1: " in done.stdout


# --- exercises share the reference's structure -----------------------------------------------


def _skeleton(path, functions) -> str:
    """The module's AST with the bodies of `functions` cut down to their docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            node.body = node.body[:1]
    return ast.dump(tree)


@pytest.mark.parametrize("number", NUMBERS)
def test_an_exercise_is_its_lab_with_only_the_key_functions_emptied(number):
    functions = LABS[number - 1].functions
    assert _skeleton(exercise_path(number), functions) == _skeleton(reference_path(number), functions)


@pytest.mark.parametrize("number", NUMBERS)
def test_every_exercise_function_raises_not_implemented_with_a_hint(number):
    tree = ast.parse(exercise_path(number).read_text(encoding="utf-8"))
    bodies = {
        n.name: n.body for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in LABS[number - 1].functions
    }
    assert set(bodies) == set(LABS[number - 1].functions)
    for name, body in bodies.items():
        docstring, statement = body
        assert isinstance(statement, ast.Raise) and statement.exc.func.id == "NotImplementedError"
        assert len(statement.exc.args[0].value) > 30, f"{name}: the hint should say what to compute"


@pytest.mark.parametrize("number", NUMBERS)
def test_the_checker_calls_exactly_the_functions_the_exercise_leaves(number):
    assert {c.function for c in checks_for(number)} == set(LABS[number - 1].functions)


# --- the labs' own data ----------------------------------------------------------------------


@pytest.mark.parametrize("number", [1, 2])
def test_the_labs_toy_world_is_the_canonical_world(ref, number):
    lab = ref[number]
    assert lab.VOCABULARY == RIVER_BANK.words
    assert lab.EMBEDDINGS == [list(RIVER_BANK.embeddings[w]) for w in RIVER_BANK.words]
    assert (_TOY_VOCABULARY, _TOY_TABLE) == (lab.VOCABULARY, lab.EMBEDDINGS)


def test_lab01_axes_are_the_canonical_axes(ref):
    assert ref[1].AXES == list(RIVER_BANK.axes)


def test_lab03_falls_back_to_its_built_in_text_outside_the_project(ref, tmp_path, monkeypatch):
    lab = ref[3]
    monkeypatch.setattr(lab, "__file__", str(tmp_path / "lab-03-bigram.py"))
    text, source = lab.load_text()
    assert source == "the built-in text" and len(lab.clean(text)) > 300


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


# --- notebooks -------------------------------------------------------------------------------


@pytest.mark.parametrize("exercise", [False, True], ids=["lab", "exercise"])
@pytest.mark.parametrize("number", NUMBERS)
def test_every_lab_makes_a_valid_notebook_without_main_guards(number, exercise):
    path = exercise_path(number) if exercise else reference_path(number)
    notebook = nbformat.reads(notebook_text(path.read_text(encoding="utf-8")), as_version=4)
    nbformat.validate(notebook)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert not any("__main__" in source for source in code)
    for source in code:
        ast.parse(source)
    assert notebook.cells[0].cell_type == "markdown" and notebook.cells[0].source.startswith(f"# Lab {number:02d}")


def test_a_notebook_is_the_same_bytes_every_time():
    source = reference_path(4).read_text(encoding="utf-8")
    assert notebook_text(source) == notebook_text(source)


def test_the_lab04_notebook_runs_cell_by_cell_to_a_passing_self_check(tmp_path):
    # The code cells in order, in one namespace, as a kernel runs them (no __file__, __name__ "__main__").
    notebook = json.loads(notebook_text(reference_path(4).read_text(encoding="utf-8")))
    program = "\n\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    script = tmp_path / "cells.txt"
    script.write_text(program, encoding="utf-8")
    runner = "import sys; exec(compile(open(sys.argv[1]).read(), 'notebook', 'exec'), {'__name__': '__main__'})"
    done = subprocess.run(
        [sys.executable, "-c", runner, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("SELF-CHECK: PASS")


def test_notebook_command_writes_into_the_current_folder_by_default(lab_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no labs/ here: the labs are found beside the package source
    code, out, _ = lab_cli("lab", "notebook", "4")
    assert code == 0 and out.startswith("wrote lab-04-attention.ipynb")
    nbformat.validate(nbformat.read(tmp_path / "lab-04-attention.ipynb", as_version=4))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab-04-attention.ipynb"]  # atomic: no temporary file left


def test_notebook_command_writes_the_exercise_into_a_given_folder(lab_cli, tmp_path):
    code, _, _ = lab_cli("lab", "notebook", "5", "--exercise", "--out", str(tmp_path))
    notebook = nbformat.read(tmp_path / "lab-05-multihead-exercise.ipynb", as_version=4)
    assert code == 0 and any("NotImplementedError" in c.source for c in notebook.cells)


def test_notebook_command_refuses_to_overwrite_without_force(lab_cli, tmp_path):
    target = tmp_path / "mine.ipynb"
    target.write_text("my work", encoding="utf-8")
    code, _, err = lab_cli("lab", "notebook", "1", "--out", str(target))
    assert code == 2 and "already exists; --force replaces it" in err and target.read_text() == "my work"
    code, _, _ = lab_cli("lab", "notebook", "1", "--out", str(target), "--force")
    assert code == 0 and target.read_text().startswith("{")


def test_notebook_command_refuses_a_name_that_is_not_ipynb(lab_cli, tmp_path):
    code, _, err = lab_cli("lab", "notebook", "1", "--out", str(tmp_path / "lab.py"))
    assert code == 2 and "must end in .ipynb" in err and not (tmp_path / "lab.py").exists()


# --- list, run, and errors -------------------------------------------------------------------


def test_lab_list_shows_all_six_labs_and_how_to_check(lab_cli):
    code, out, _ = lab_cli("lab", "list")
    assert code == 0
    for lab in LABS:
        assert f"  {lab.number}  {lab.filename}" in out
    assert "attention-by-hand lab check N" in out


def test_lab_run_returns_the_labs_exit_code(capfd):
    code = lab_main("lab", "run", "1")
    assert code == 0 and "SELF-CHECK: PASS" in capfd.readouterr().out  # the script writes to the real stdout


def test_lab_run_passes_arguments_on_to_the_script(capfd):
    code = lab_main("lab", "run", "6", "--help")
    assert code == 0 and "--quick" in capfd.readouterr().out


@pytest.mark.parametrize("number", ["0", "7", "four"])
def test_a_lab_number_that_does_not_exist_is_one_line_and_exit_2(lab_cli, number):
    code, _, err = lab_cli("lab", "run", number)
    assert (
        code == 2
        and err == f"attention-by-hand: error: no lab {number!r}: the labs are numbered 1 to 6 "
        "(see: attention-by-hand lab list)\n"
    )


def test_missing_labs_folder_is_one_line_naming_where_it_looked(lab_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(labs_module, "__file__", str(tmp_path / "a" / "b" / "labs.py"))
    code, _, err = lab_cli("lab", "run", "4")
    assert code == 2 and len(err.splitlines()) == 1 and "cannot find the labs" in err and str(tmp_path / "labs") in err


def test_lab_without_a_subcommand_prints_its_help_and_exits_2(lab_cli):
    code, out, _ = lab_cli("lab")
    assert code == 2 and "lab check 4 mine.py" in out


def _help(capsys, *argv: str) -> str:
    import argparse

    parser = argparse.ArgumentParser(prog="attention-by-hand")
    labs_module.register(parser.add_subparsers())
    with pytest.raises(SystemExit):
        parser.parse_args([*argv, "--help"])
    return capsys.readouterr().out


def test_lab_help_walks_from_list_to_a_passing_check(capsys):
    out = _help(capsys, "lab")
    steps = [
        "lab list",
        "lab run 4",
        "cp labs/exercises/lab-04-attention.py mine.py",
        "python3 mine.py",
        "lab check 4 mine.py",
    ]
    positions = [out.index(step) for step in steps]
    assert positions == sorted(positions)


def test_check_help_explains_the_exit_codes_and_limits(capsys):
    out = " ".join(_help(capsys, "lab", "check").split())  # argparse wraps lines
    assert "Exit 0 all passed, 1 some failed, 2 FILE cannot be run" in out and "--timeout" in out and "--memory" in out
