"""raised_where.py: an error raised in a loop's body and one raised outside any loop are not one
error, however alike their words; a change of the reference named where the learner's function
raised must raise at a place of the same kind."""

from __future__ import annotations

from attention_by_hand.lab.outcomes import agree, alike, raised
from attention_by_hand.lab.raised_where import in_loop
from labhelpers import failed_hints

SOURCE = '''def f(xs):
    total = 0
    for x in xs:
        total += x
    return total
'''


def _file(tmp_path):
    path = tmp_path / "f.py"
    path.write_text(SOURCE, encoding="utf-8")
    return str(path)


def test_a_line_of_a_loops_body_is_in_the_loop(tmp_path):
    assert in_loop(_file(tmp_path), 4) is True


def test_the_loops_header_and_the_return_are_not(tmp_path):
    path = _file(tmp_path)
    assert (in_loop(path, 3), in_loop(path, 5)) == (False, False)


def test_a_comprehension_is_a_loop_and_a_function_without_loops_tells_nothing(tmp_path):
    path = tmp_path / "g.py"
    path.write_text("def g(xs):\n    return [x + 1 for x in xs]\n\n\ndef h(x):\n    return x + 1\n", encoding="utf-8")
    assert (in_loop(str(path), 2), in_loop(str(path), 6)) == (True, None)


def test_a_file_that_cannot_be_read_tells_nothing(tmp_path):
    assert in_loop(str(tmp_path / "missing.py"), 3) is None


def test_the_same_words_raised_at_places_of_two_kinds_do_not_agree():
    a, b = raised("RuntimeError", "sizes 8 and 3", True), raised("RuntimeError", "sizes 8 and 3", False)
    assert not agree(a, b) and not alike(a, b)


def test_where_one_side_cannot_tell_the_words_decide():
    assert agree(raised("RuntimeError", "sizes 8 and 3", True), raised("RuntimeError", "sizes 8 and 3"))


# the running maximum and sum kept per score (the shape of the scores): the loop raises on a matrix
PER_SCORE_STATE = '''
def online_softmax(scores):
    m = scores.clone().fill_(float("-inf"))
    l = torch.zeros(scores.shape)
    for j in range(scores.shape[-1]):
        m_next = torch.maximum(m, scores[..., j])
        l = l * torch.exp(m - m_next) + torch.exp(scores[..., j] - m_next)
        m = m_next
    return torch.exp(scores - m) / l
'''

# the running sum kept per row, as it should be, but divided without its new axis at the end
SUM_WITHOUT_NEW_AXIS = '''
def online_softmax(scores):
    m = torch.full(scores.shape[:-1], float("-inf"))
    l = torch.zeros(scores.shape[:-1])
    for j in range(scores.shape[-1]):
        m_next = torch.maximum(m, scores[..., j])
        l = l * torch.exp(m - m_next) + torch.exp(scores[..., j] - m_next)
        m = m_next
    return torch.exp(scores - m[..., None]) / l
'''


def test_an_error_in_the_loop_is_not_named_as_a_slip_of_the_return(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", PER_SCORE_STATE, "online_softmax")
    assert found and not any("yours equals the reference with" in h for h in found)


def test_an_error_at_the_return_is_still_named_as_the_slip_there(tmp_path):
    found = failed_hints(tmp_path, "lab-09-flash-attention.py", SUM_WITHOUT_NEW_AXIS, "online_softmax")
    assert found and all("`l` for `l[..., None]`" in h for h in found)
