"""Each part run once per session (and once more for the determinism tests), shared by the tests."""

import pytest

from attention_by_hand import parts
from attention_by_hand.run.part import RunContext


@pytest.fixture(scope="session")
def part_run(tmp_path_factory):
    """part_run(name, n=1): the n-th run of that part into a fresh folder, made once per session.

    The second run computes the canonical part's measurements in this process, so the two runs
    also compare the helper process with the in-process path.
    """
    made = {}

    def get(name: str, n: int = 1):
        if (name, n) not in made:
            out = tmp_path_factory.mktemp(f"{name}-{n}")
            made[name, n] = parts.get_part(name).run(RunContext(out=out, background=n == 1))
        return made[name, n]

    return get
