"""size_locals: the sizes a learner's function bound from a shape that end unlike the reference's
same-named locals, with the line that bound them, where the reference's number there makes the
output right; nothing where they agree, are not sizes, or rightly mean another size."""

from __future__ import annotations

import importlib.util
import sys

import torch

from attention_by_hand.lab.size_locals import sizes_apart


def _module(tmp_path, source: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


REFERENCE = """
def tiles(q, k):
    T_q, T_k = q.shape[-2], k.shape[-2]
    total = 0
    for j in range(T_k):
        total = total + k[..., j, 0].sum()
    return total * T_q
"""


def _args():
    return (torch.ones(3, 2), torch.ones(5, 2))


def _right(ref):
    expected = ref.tiles(*_args())
    return lambda got: torch.is_tensor(got) and bool(torch.isclose(got, expected))


def test_a_size_unpacked_from_the_wrong_tensor_is_said_with_its_line(tmp_path):
    ref = _module(tmp_path, REFERENCE, "ref_sizes_a")
    mine = _module(tmp_path, "import torch\n\ndef tiles(q, k):\n    T_q, T_k = q.shape[-2:]\n    total = 0\n"
                   "    for j in range(T_k):\n        total = total + k[..., j, 0].sum()\n    return total * T_q\n", "mine_sizes_a")
    assert sizes_apart(mine.tiles, ref.tiles, _args, _right(ref)) == [["T_k", 2, 5, 4, "T_q, T_k = q.shape[-2:]"]]


def test_sizes_that_agree_are_said_nothing(tmp_path):
    ref = _module(tmp_path, REFERENCE, "ref_sizes_b")
    mine = _module(tmp_path, "def tiles(q, k):\n    T_q = len(q)\n    T_k = k.size(0)\n    return (k[:, 0].sum() + 1) * T_q\n",
                   "mine_sizes_b")
    assert sizes_apart(mine.tiles, ref.tiles, _args, _right(ref)) == []


def test_a_loop_counter_named_alike_is_not_compared(tmp_path):
    ref = _module(tmp_path, REFERENCE, "ref_sizes_c")
    mine = _module(tmp_path, "def tiles(q, k):\n    total = 0\n    for j in range(2):\n        total = total + k[..., j, 0].sum()\n"
                   "    return total\n", "mine_sizes_c")
    assert sizes_apart(mine.tiles, ref.tiles, _args, _right(ref)) == []


def test_a_size_that_rightly_means_another_number_is_said_nothing(tmp_path):
    # `T_k` here counts the key tiles of 1, not the keys: the reference's 5 put into it would break it
    ref = _module(tmp_path, REFERENCE, "ref_sizes_d")
    mine = _module(tmp_path, "def tiles(q, k):\n    T_q, T_k = q.shape[-2], len(k) - 4\n    total = 0\n"
                   "    for j in range(T_k):\n        total = total + k[..., j:j + 5, 0].sum()\n    return total * 2 * T_q\n",
                   "mine_sizes_d")
    assert sizes_apart(mine.tiles, ref.tiles, _args, _right(ref)) == []


def test_a_function_that_raises_is_mended_by_the_reference_s_number(tmp_path):
    ref = _module(tmp_path, REFERENCE, "ref_sizes_e")
    mine = _module(tmp_path, "def tiles(q, k):\n    T_q, T_k = q.shape[-2], q.shape[-1] + 4\n    total = 0\n"
                   "    for j in range(T_k):\n        total = total + k[..., j, 0].sum()\n    return total * T_q\n",
                   "mine_sizes_e")
    assert sizes_apart(mine.tiles, ref.tiles, _args, _right(ref)) == [["T_k", 6, 5, 2, "T_q, T_k = q.shape[-2], q.shape[-1] + 4"]]
