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

# The compiled evaluator kernel, rebuilt when its source changes.
$(KERNEL): $(STAMP) controller/_handeval.c
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
test: lint typecheck
	$(PYTEST) -m "not full" -q

test-full: lint typecheck
	$(PYTEST) -q

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
	rm -rf $(VENV) build *.egg-info controller/_handeval*.so .pytest_cache .mypy_cache .ruff_cache
