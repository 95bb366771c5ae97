# Two commands do everything on a fresh machine with Python 3.10+:
#   make run    create .venv, install the pinned versions, run the experiment
#   make test   the same set-up, then the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test bench clean

run: $(STAMP)
	$(PY) -m attention_by_hand run

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/run_breakdown.py

# Re-installs when the pins or the package metadata change.
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
