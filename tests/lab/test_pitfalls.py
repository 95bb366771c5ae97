"""Python pitfalls read off a learner's function (pitfalls.py), and the hint that says them."""

from __future__ import annotations

import importlib.util

import pytest

from attention_by_hand.lab.pitfalls import pitfalls
from attention_by_hand.lab.registry import LABS
from attention_by_hand.lab.verdict import check_in_process
from labhelpers import REFERENCES, load_lab, patch_lab

LEARNER = '''
import torch


def twice(xs):
    doubled = (x * 2 for x in xs)
    total = sum(doubled)
    return total, list(doubled)


def once(xs):
    doubled = (x * 2 for x in xs)
    return sum(doubled)


def one_branch_each(xs, flag):
    doubled = map(abs, xs)
    if flag:
        return sum(doubled)
    else:
        return max(doubled)


def kept_lambdas(n):
    scale = []
    for h in range(n):
        scale.append(lambda x: x * h)
    return [f(1) for f in scale]


def bound_lambdas(n):
    scale = []
    for h in range(n):
        scale.append(lambda x, h=h: x * h)
    return [f(1) for f in scale]


def used_in_the_loop(n):
    out = []
    for h in range(n):
        f = lambda x: x * h
        out.append(f(1))
    return out


def early_return(xs, flag):
    doubled = map(abs, xs)
    if flag:
        return sum(doubled)
    return max(doubled)


def peeked(xs, ys):
    pairs = zip(xs, ys)
    first = next(pairs)
    return first, list(pairs)


def shadowed(xs):
    doubled = (x * 2 for x in xs)
    twice = lambda doubled: doubled * 2
    return twice(sum(doubled))


def name_reused_after_the_loop(n):
    for h in range(n):
        def head(x):
            return x[h]
        first = head([0, 1, 2])
    head = 2
    return first * head


def own_variable(n):
    made = []
    for h in range(n):
        made.append(lambda x: [x * h for h in range(3)])
    return [m(1) for m in made]


def kept_defs(n):
    made = []
    for h in range(n):
        def head(x):
            return x + h
        made.append(head)
    return [m(0) for m in made]


def shared_counts(pairs, n):
    table = [[0] * n] * n
    for a, b in pairs:
        table[a][b] += 1
    return table


def shared_tensors(n, d):
    rows = n * [torch.zeros(d)]
    for i in range(n):
        rows[i] += i
    return rows


def copied_rows(pairs, n):
    table = [[0] * n for _ in range(n)]
    for a, b in pairs:
        table[a][b] += 1
    return table


def tested_not_stored(x, hidden):
    x[hidden] == 0.0
    return x


def fill_dropped(x, hidden):
    x.masked_fill(hidden, 0.0)
    return x


def reshape_dropped(x):
    x.reshape(-1)
    return x


def fill_kept(x, hidden):
    x.masked_fill_(hidden, 0.0)
    """a string alone is no statement with an effect lost"""
    return x


def written_into(a, b):
    top = torch.maximum(a, b, out=a)
    return top - a


def written_into_and_not_read(a, b):
    top = torch.maximum(a, b, out=a)
    return top * 2


def rows_rebound(x):
    for row in x:
        row = row - row.mean()
        if row.numel() > 1:
            row = row / row.std()
    return x


def rows_rebound_and_kept(x):
    out = []
    for row in x:
        row = row - row.mean()
        out.append(row)
    return out


def rows_rebound_and_read_after_the_loop(x):
    for row in x:
        row = row * 2
    return row


def calls_with_effects(x, seen, layer):
    seen.add(1)
    torch.exp(x, out=x)
    layer.float()
    return x


def sum_dropped(x):
    x * 2
    return x


def rows_divided_in_place(x):
    for row in x:
        row = row.div_(row.sum())
    return x


def rows_read_by_a_closure(x):
    out = []
    for row in x:
        row = row * 2

        def twice():
            return row * 2

        out.append(twice())
    return out


def rows_read_in_else(x):
    for row in x:
        row = row * 2
    else:
        print(row)
    return x


def rows_read_in_finally(x):
    for row in x:
        try:
            row = row * 2
        finally:
            print(row)
    return x


def buffer_filled(a, b):
    buffer = torch.empty(3)
    kept = torch.add(a, b, out=buffer)
    buffer.mul_(2)
    return kept


def shared_then_replaced(pairs, n):
    table = [[0] * n] * n
    for a in range(n):
        table[a] = [0] * n
    for a, b in pairs:
        table[a][b] += 1
    return table


def shared_appended(n):
    lists = [[]] * n
    lists[0].append(1)
    return lists


def rows_replaced(n, d):
    rows = [torch.zeros(d)] * n
    for i in range(n):
        rows[i] = rows[i] + i
    return rows


def appended_kept(xs):
    halves, doubles = [], []
    for x in xs:
        halves = halves.append(x / 2)
        doubles.append(x * 2)
    return halves, doubles


def grown(cache, row):
    return torch.cat([cache, row[None]])


def grown_in_place(rows, row):
    rows.append(row)
    return rows


def call_dropped(cache, row):
    grown(cache, row)
    return cache


def _push(rows, row):
    rows.append(row)


def remember(rows, row):
    _push(rows, row)
    return len(rows)


def remembered_through_a_helper(rows, row):
    remember(rows, row)
    return rows


def call_kept_for_its_change(rows, row):
    grown_in_place(rows, row)
    return rows


def counted_into_an_expanded_row(pairs, n):
    table = torch.zeros(1, n).expand(n, n)
    for a, b in pairs:
        table[a, b] += 1
    return table


def expanded_and_only_read(row, n):
    table = row.expand(n, -1)
    return table * 2


def hidden_by_bits(T):
    seen = torch.ones(T, T, dtype=torch.int32).tril()
    return ~seen > 0


def hidden_by_a_bool_not(T):
    seen = torch.ones(T, T, dtype=torch.bool).tril()
    return ~seen


def appended_to_something_else(queue, x):
    size = queue.append(x)
    return size

def norms_zipped_as_rows(x, ln1, attn, ln2, mlp):
    for norm, branch in zip((ln1, attn), (ln2, mlp)):
        x = x + branch(norm(x))
    return x


def pairs_zipped_from_two_lists(x, norms, branches):
    for norm, branch in zip(norms, branches):
        x = x + branch(norm(x))
    return x

def stop_test_without_brackets(causal, ks, qs):
    if causal & ks > qs:
        return 1
    return 0


def stop_test_with_brackets(causal, ks, qs):
    if causal & (ks > qs):
        return 1
    return (causal & ks) > qs

def below_by_pairs(T):
    bias = torch.zeros(T, T)
    below = torch.tril_indices(T, T, -1)
    bias[below] = 1.0
    return bias


def below_by_two_indices(T):
    bias = torch.zeros(T, T)
    below = torch.tril_indices(T, T, -1)
    bias[below[0], below[1]] = 1.0
    return bias

def even_rows(idx):
    return idx & 1 == 0


def weights_zipped_with_biases(x, w1, w2, b1, b2):
    for w, b in zip((w1, w2), (b1, b2)):
        x = x @ w + b
    return x
'''


def _module(tmp_path):
    path = tmp_path / "learner.py"
    path.write_text(LEARNER, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("learner_pitfalls", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _line(code: str) -> int:
    return 1 + LEARNER.splitlines().index(code)


def _said(found):
    return [words.format(*(f"line {n}" for n in lines)) for _, words, lines in found]


def test_a_generator_used_twice_is_said_with_both_lines(tmp_path):
    found = pitfalls(_module(tmp_path).twice)
    made, again = _line("    doubled = (x * 2 for x in xs)"), _line("    return total, list(doubled)")
    assert found[0][0] == made and _said(found) == [
        f"`doubled` (line {made}) is a generator: it can be gone through once, so its next use (line {again}) finds it already empty"]


def test_a_use_after_an_early_return_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).early_return) == []


def test_a_peek_with_next_leaves_the_rest_to_use(tmp_path):
    assert pitfalls(_module(tmp_path).peeked) == []


def test_a_lambdas_own_parameter_of_the_same_name_is_no_use(tmp_path):
    assert pitfalls(_module(tmp_path).shadowed) == []


def test_a_def_whose_name_is_bound_again_after_the_loop_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).name_reused_after_the_loop) == []


def test_a_lambda_that_binds_the_loops_name_itself_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).own_variable) == []


def test_a_generator_used_once_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).once) == []


def test_a_lazy_map_read_in_two_branches_of_one_if_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).one_branch_each) == []


def test_a_lazy_map_is_said_as_a_one_pass_iterator():
    from attention_by_hand.lab.learner_notes import with_notes

    found = [[3, "`d` ({0}) is a one-pass iterator (`map(...)`): it can be gone through once, so its next use ({1}) finds it already empty", [3, 5]]]
    said = with_notes("the hint", [], None, line_name=lambda n: f"cell 2, line {n}", pitfalls=found)
    assert said.startswith("`d` (cell 2, line 3) is a one-pass iterator") and "next use (cell 2, line 5)" in said


def test_lambdas_kept_from_a_loop_that_read_its_variable_are_said(tmp_path):
    found = pitfalls(_module(tmp_path).kept_lambdas)
    assert found[0][0] == _line("        scale.append(lambda x: x * h)") and "reads `h` when it is called" in _said(found)[0]


def test_a_loop_variable_bound_as_a_default_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).bound_lambdas) == []


def test_a_lambda_called_within_its_own_pass_of_the_loop_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).used_in_the_loop) == []


def test_a_def_in_a_loop_kept_in_a_list_is_said(tmp_path):
    found = pitfalls(_module(tmp_path).kept_defs)
    assert found[0][0] == _line("        made.append(head)") - 2 and "every one of them sees the last `h`" in _said(found)[0]


HEADS_TWICE = '''
def multi_head_attention(x, query, key, value, proj, n_heads):
    T = x.shape[0]
    q, k, v = (split_heads(layer(x), n_heads) for layer in (query, key, value))
    hidden = torch.ones(T, T, dtype=torch.bool).triu(1)
    pairs = (torch.softmax((q[h] @ k[h].T / math.sqrt(q.shape[-1])).masked_fill(hidden, float("-inf")), dim=-1)
             for h in range(n_heads))
    weights = torch.stack(list(pairs))
    heads = torch.stack([w @ v[h] for h, w in enumerate(pairs)])
    return proj(merge_heads(heads)), weights
'''


def test_a_failed_check_says_the_pitfall_first(tmp_path):
    path = tmp_path / "lab-05-multihead.py"
    path.write_text(patch_lab(REFERENCES[path.name].read_text(encoding="utf-8"), HEADS_TWICE), encoding="utf-8")
    run = check_in_process(load_lab(path), LABS[4])
    hints = [r.hint for r in run.results if not r.passed and r.label.startswith("multi_head_attention")]
    assert hints and all(h.startswith("`pairs` (line ") and "is a generator: it can be gone through once" in h for h in hints)


def test_a_list_of_one_row_repeated_then_counted_into_is_said_with_both_lines(tmp_path):
    found = pitfalls(_module(tmp_path).shared_counts)
    made, changed = _line("    table = [[0] * n] * n"), _line("        table[a][b] += 1")
    assert [f[0] for f in found] == [made] and _said(found) == [
        f"`table` (line {made}) holds one object many times: `[row] * n` repeats the same row, not copies of it, "
        f"so a change to one entry (line {changed}) shows in every one"]


def test_a_tensor_repeated_in_a_list_and_added_to_in_place_is_said(tmp_path):
    found = pitfalls(_module(tmp_path).shared_tensors)
    assert [f[0] for f in found] == [_line("    rows = n * [torch.zeros(d)]")]


def test_a_comparison_where_an_assignment_was_meant_is_said(tmp_path):
    found = pitfalls(_module(tmp_path).tested_not_stored)
    at = _line("    x[hidden] == 0.0")
    assert _said(found) == [f"`x[hidden] == 0.0` (line {at}) compares and throws the answer away: `==` asks, `=` stores"]


def test_a_new_tensor_made_and_dropped_is_said_with_the_in_place_call_torch_has(tmp_path):
    said = _said(pitfalls(_module(tmp_path).fill_dropped))
    assert len(said) == 1 and "returns a new tensor and changes nothing" in said[0] and "(`masked_fill_` changes" in said[0]


def test_a_call_torch_has_no_in_place_form_of_is_said_without_one(tmp_path):
    said = _said(pitfalls(_module(tmp_path).reshape_dropped))
    assert len(said) == 1 and said[0].endswith("its result is thrown away")


def test_a_result_written_into_an_input_and_read_as_the_old_value_is_said(tmp_path):
    made, read = _line("    top = torch.maximum(a, b, out=a)"), _line("    return top - a")
    assert _said(pitfalls(_module(tmp_path).written_into)) == [
        f"`top` (line {made}) is `a` itself: `out=a` writes the result into `a` and returns it, so `a` no longer "
        f"holds its old values, which line {read} reads beside `top`"]


def test_the_loops_own_name_given_a_value_nothing_reads_is_said_at_its_last_store(tmp_path):
    found = pitfalls(_module(tmp_path).rows_rebound)
    at = _line("            row = row / row.std()")
    assert [f[0] for f in found] == [at] and _said(found)[0].startswith(f"`row` is the loop's own name: giving it a new value (line {at})")


def test_arithmetic_as_a_statement_is_said_to_be_thrown_away(tmp_path):
    said = _said(pitfalls(_module(tmp_path).sum_dropped))
    assert said == [f"`x * 2` (line {_line('    x * 2')}) computes a value and throws it away: nothing stores it"]


def test_repeated_lists_changed_through_a_method_are_said(tmp_path):
    found = pitfalls(_module(tmp_path).shared_appended)
    assert [f[2] for f in found] == [[_line("    lists = [[]] * n"), _line("    lists[0].append(1)")]]


# code that reads like a pitfall and is none: each of these is said nothing of
@pytest.mark.parametrize("function", [
    "calls_with_effects",  # a set's add, exp written with out=, a layer's float(): each has an effect
    "rows_divided_in_place",  # the loop's name given a value made in place: the row did change
    "rows_read_by_a_closure",
    "rows_read_in_else",
    "rows_read_in_finally",
    "buffer_filled",  # out= into a buffer read alone afterwards
    "shared_then_replaced",  # repeated rows, each replaced before any is changed
    "copied_rows",
    "rows_replaced",  # `rows[i] = rows[i] + i` makes a new tensor: the shared one never changes
    "fill_kept",  # an in-place call, and a string alone
    "written_into_and_not_read",
    "rows_rebound_and_kept",
    "rows_rebound_and_read_after_the_loop",
])
def test_code_that_only_looks_like_a_pitfall_is_said_nothing_of(tmp_path, function):
    assert pitfalls(getattr(_module(tmp_path), function)) == []


def test_a_lists_append_kept_as_its_value_is_said_as_none(tmp_path):
    line = _line("        halves = halves.append(x / 2)")
    assert _said(pitfalls(_module(tmp_path).appended_kept)) == [
        f"`halves = halves.append(...)` (line {line}) keeps None in `halves`: a list's `append` changes the list "
        f"itself and returns None; call `halves.append(...)` alone, without the assignment"]


def test_an_append_of_something_not_made_as_a_list_is_not_said(tmp_path):
    # a queue of the caller's own kind may well return what its `append` gives
    assert pitfalls(_module(tmp_path).appended_to_something_else) == []


def test_a_call_of_a_function_of_the_file_whose_result_is_dropped_is_said(tmp_path):
    line = _line("    grown(cache, row)")
    assert _said(pitfalls(_module(tmp_path).call_dropped)) == [
        f"`grown(...)` (line {line}) returns what it makes and changes none of its arguments, and its result is "
        f"thrown away here: the call changes nothing; keep what it returns"]


def test_a_dropped_result_of_a_function_that_changes_its_argument_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).call_kept_for_its_change) == []


def test_a_tensor_made_by_expand_then_written_into_is_said_with_both_lines(tmp_path):
    made, written = _line("    table = torch.zeros(1, n).expand(n, n)"), _line("        table[a, b] += 1")
    said = _said(pitfalls(_module(tmp_path).counted_into_an_expanded_row))
    assert len(said) == 1 and said[0].startswith(f"`table` (line {made}) is made by `expand`, which repeats one memory")
    assert f"a write into one entry (line {written}) shows along all of them" in said[0]


def test_an_expanded_tensor_that_is_only_read_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).expanded_and_only_read) == []


def test_a_not_of_an_integer_tensor_is_said_to_flip_bits(tmp_path):
    line = _line("    return ~seen > 0")
    assert _said(pitfalls(_module(tmp_path).hidden_by_bits)) == [
        f"`~seen` (line {line}) flips every bit of an integer tensor: ~1 is -2 and ~0 is -1, and both are True as a "
        f"bool; `~` is a logical not only on a bool tensor (make the mask with a comparison or a bool dtype)"]


def test_a_not_of_a_bool_tensor_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).hidden_by_a_bool_not) == []


def test_the_last_step_decides_the_dtype_of_what_is_inverted():
    import ast

    from attention_by_hand.lab.made_pitfalls import inverted_integers

    def said(code):
        return inverted_integers(ast.parse(f"def f(T):\n    seen = {code}\n    return ~seen\n").body[0])

    assert said("torch.tril(torch.ones(T, T, dtype=torch.long))")
    assert said("torch.ones(T, T).tril().long()")
    assert not said("torch.ones(T, T, dtype=torch.long).tril().bool()")
    assert not said("torch.ones(T, T).tril()")
    assert not said("torch.ones(T, T, dtype=torch.long).tril().eq(1)")  # a comparison makes bools
    assert not said("int(T // 2)")  # a Python int: no tensor


def test_a_dropped_result_of_a_function_that_changes_its_argument_through_a_helper_is_fine(tmp_path):
    # `remember` calls a helper of its own, which appends: its text alone cannot show it pure
    assert pitfalls(_module(tmp_path).remembered_through_a_helper) == []


def test_written_tuples_zipped_as_rows_are_said_pass_by_pass(tmp_path):
    line = _line("    for norm, branch in zip((ln1, attn), (ln2, mlp)):")
    assert _said(pitfalls(_module(tmp_path).norms_zipped_as_rows)) == [
        f"`for norm, branch in zip(...)` (line {line}) takes `norm, branch` = `ln1, ln2` and then `attn, mlp`: zip pairs "
        f"the entries of its arguments by position, the first of each together, not each argument's own entries"]


def test_two_sequences_zipped_by_name_are_fine(tmp_path):
    assert pitfalls(_module(tmp_path).pairs_zipped_from_two_lists) == []


def test_an_and_beside_a_comparison_without_brackets_is_said_as_python_reads_it(tmp_path):
    line = _line("    if causal & ks > qs:")
    assert _said(pitfalls(_module(tmp_path).stop_test_without_brackets)) == [
        f"`causal & ks > qs` (line {line}) is read by Python as `(causal & ks) > qs`: `&` binds tighter than a "
        f"comparison; for both conditions, `causal and ks > qs` (bools) or `causal & (ks > qs)` (tensors)"]


def test_an_and_beside_a_comparison_in_brackets_the_learner_wrote_is_fine(tmp_path):
    assert pitfalls(_module(tmp_path).stop_test_with_brackets) == []


def test_index_pairs_given_as_one_index_are_said_with_the_two_indices_meant(tmp_path):
    line = _line("    bias[below] = 1.0")
    said = _said(pitfalls(_module(tmp_path).below_by_pairs))
    assert said == [f"`bias[below]` (line {line}) gives `below` as one index: it is (2, n), a row of first positions over a "
                    f"row of second, and a tensor given as one index picks whole entries along the first axis, one per "
                    f"number it holds; for the cells, give its positions as two indices, `bias[below[0], below[1]]`"]


def test_index_pairs_given_as_two_indices_are_fine(tmp_path):
    assert pitfalls(_module(tmp_path).below_by_two_indices) == []


def test_a_bitwise_and_with_a_number_beside_a_comparison_is_read_as_meant(tmp_path):
    assert pitfalls(_module(tmp_path).even_rows) == []


def test_columns_of_pairs_zipped_are_fine(tmp_path):
    assert pitfalls(_module(tmp_path).weights_zipped_with_biases) == []
