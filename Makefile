# tablectl: set-up, demo, tests, benchmarks. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
KERNEL := $(VENV)/.kernel-built
PYTEST := $(BIN)/python -m pytest

.PHONY: venv demo test test-full bench math camera-profile lint typecheck format clean

venv: $(KERNEL)

# The virtual environment, with the project installed editable and its dev extra.
# Re-created only when the project's declared dependencies change.
$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# The compiled parts, rebuilt when a source changes: the evaluator kernel, and the core's
# hot modules compiled from their Python source (setup.py lists them; only those changed
# are compiled again, and a module changed since runs from its source until then).
$(KERNEL): $(STAMP) setup.py controller/_handeval.c $(wildcard controller/*.py controller/games/*.py)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

demo: venv
	$(BIN)/tablectl demo

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: venv
	$(BIN)/mypy

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The full suite in its fast form: exhaustive checks marked `full` run in test-full.
# The core's own tests again from its Python source (the reference, and what runs where a
# compiled module is out of date): a few seconds.
PURE_TESTS := controller tests/controller/test_table.py tests/controller/test_table_stateful.py \
	tests/controller/test_irregularities.py tests/controller/test_kept_records.py

test: lint typecheck
	$(PYTEST) -m "not full" -q
	TABLECTL_PURE=1 $(PYTEST) -m "not full" -q $(PURE_TESTS)

test-full: lint typecheck
	$(PYTEST) -q
	TABLECTL_PURE=1 $(PYTEST) -q $(PURE_TESTS)

bench: venv
	$(BIN)/python benchmarks/evaluator.py
	$(BIN)/python benchmarks/shoe_latency.py
	$(BIN)/python benchmarks/table.py
	$(BIN)/python benchmarks/recognizer.py
	$(BIN)/python benchmarks/latency.py

# The game-mathematics report: exact returns and long simulations, written to docs/math.md.
math: venv
	$(BIN)/tablectl math report --hands 2000000 --seed 1 --out docs/math.md

# Regenerate the built-in card profile from rendered cards (commit the result).
camera-profile: venv
	$(BIN)/python -m simulators.camera.builtin

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache controller/_compiled.json
	find controller -name '*.so' -delete
	find controller -name '*.c' ! -name _handeval.c -delete
