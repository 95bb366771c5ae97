"""The checker's catalogue of the mistakes it recognises, shipped for the instructor's page."""

from __future__ import annotations

from attention_by_hand.lab.attention_judges import MASK_HINTS
from attention_by_hand.lab.mistakes import catalogue, shipped_mistakes
from attention_by_hand.lab.registry import LABS


def test_the_shipped_catalogue_is_the_one_the_checks_give_now():
    # Stale after a checks module changes: `python -m attention_by_hand.lab.mistakes` writes it again.
    now = {int(n): {f: tuple(h) for f, h in functions.items()} for n, functions in catalogue()["labs"].items()}
    assert shipped_mistakes() == now


def test_every_lab_and_every_function_to_write_has_mistakes_listed():
    shipped = shipped_mistakes()
    assert sorted(shipped) == [lab.number for lab in LABS]
    for lab in LABS:
        assert set(shipped[lab.number]) == set(lab.functions)
        assert sum(len(hints) for hints in shipped[lab.number].values()) >= 2


def test_a_mistake_the_judge_knows_is_in_the_catalogue_once():
    weights = shipped_mistakes()[4]["attention_weights"]
    assert weights.count(MASK_HINTS["zero"]) == 1


def test_mistakes_tried_together_are_not_listed_as_mistakes_of_their_own():
    for functions in shipped_mistakes().values():
        for hints in functions.values():
            assert not any(hint.startswith(other + "; ") for hint in hints for other in hints if other != hint)


def test_no_hint_is_listed_with_numbers_under_which_it_changes_nothing():
    # "the `base` argument is ignored: this call passed base = 10000, and the table used 10000"
    # describes no mistake: a hint is listed from an input where its mistake changes the output.
    hints = [h for functions in shipped_mistakes().values() for hs in functions.values() for h in hs]
    assert not any("passed base = 10000, and the table used 10000" in h for h in hints)
    assert any("passed base = 100, and the table used 10000" in h for h in hints)
