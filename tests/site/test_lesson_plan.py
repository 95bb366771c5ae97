"""The instructor's lesson plans (sphinxext/instructor.py): which steps fit a session, and a
heading made from those steps alone, so that it never names a step the plan leaves out.

The built plans on the instructor's page are checked in test_site.py; these check the rules on
any list of steps."""

from __future__ import annotations


from hypothesis import given
from hypothesis import strategies as st

from attention_by_hand.site.sphinxext.instructor import Step, fit, heading, session_length
from sitehelpers import named_in


def step(kind: str, number: int, minutes: int) -> Step:
    name = "a break" if kind == "break" else f"{kind} {number}"
    return Step(kind, None if kind == "break" else number, name, name, minutes)


steps_of_a_session = st.lists(
    st.builds(step, st.sampled_from(["module", "lab", "break"]), st.integers(0, 12), st.integers(1, 60)), max_size=12
)


@given(steps_of_a_session, st.integers(1, 480))
def test_the_steps_that_fit_come_first_in_order_and_the_rest_follow(steps, minutes):
    fitted, left = fit(steps, minutes)
    assert fitted + left == steps
    assert sum(s.minutes for s in fitted) <= minutes
    if left:
        assert sum(s.minutes for s in fitted) + left[0].minutes > minutes


@given(steps_of_a_session, st.integers(1, 480))
def test_a_heading_names_exactly_the_modules_and_labs_that_fit(steps, minutes):
    fitted, left = fit(steps, minutes)
    title = heading(minutes, fitted)
    assert named_in(title) == {(s.kind, s.number) for s in fitted if s.kind != "break"}


@given(steps_of_a_session, st.integers(1, 480))
def test_a_heading_never_names_a_step_left_for_after_the_session(steps, minutes):
    fitted, left = fit(steps, minutes)
    only_left = {(s.kind, s.number) for s in left} - {(s.kind, s.number) for s in fitted}
    assert named_in(heading(minutes, fitted)) & only_left == set()


def test_a_heading_gathers_runs_of_numbers_and_pads_labs_as_the_labs_do():
    fitted = [step("module", n, 10) for n in (0, 1, 2, 3)] + [step("lab", 2, 20), step("lab", 4, 20)]
    assert heading(90, fitted) == "An hour and a half: Modules 0 to 3, Labs 02 and 04"


def test_a_session_with_no_step_that_fits_says_so():
    fitted, left = fit([step("lab", 6, 61)], 60)
    assert fitted == [] and heading(60, fitted) == "An hour: no step fits"


def test_a_sessions_length_is_said_in_words():
    assert [session_length(m) for m in (45, 60, 90, 150, 240, 75)] == [
        "45 minutes", "An hour", "An hour and a half", "Two and a half hours", "Four hours", "An hour and 15 minutes",
    ]  # fmt: skip
