# tablectl: set-up, demo, tests, benchmarks. `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.dev-installed
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check
PYTEST := $(BIN)/python -m pytest

.PHONY: venv dev demo test test-full bench math camera-profile index-model lint layers typecheck format clean screenshots

# The virtual environment with the project installed editable: what the demo and a table
# need, nothing more (the C kernel is built here, with the system's C compiler). Made again
# when the declared dependencies or the kernel's source change.
venv: $(STAMP)

$(STAMP): pyproject.toml setup.py controller/_handeval.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

# ... and the dev extra: test tools, linters and the outside evaluators the tests compare with.
dev: $(DEV)

$(DEV): $(STAMP)
	$(PIP) -e '.[dev]'
	touch $@

# The demo serves its tables' pages in the browser while it plays (the URLs are printed) and
# for LINGER seconds after; WEB=127.0.0.1:0 takes any free port.
WEB    ?= 127.0.0.1:8080
LINGER ?= 5
demo: venv
	$(BIN)/tablectl demo --web $(WEB) --linger $(LINGER)

# Screenshots of the browser pages for docs/displays.md, from a live table in headless Chromium.
screenshots: dev
	$(BIN)/python -m tests.support.screenshots docs/screenshots
	$(BIN)/python -m tests.support.console_screenshots docs/screenshots

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Imports run one way: controller -> config -> drivers -> simulators -> tablectl (pyproject.toml).
# The suite checks it too (tests/test_layers.py); this is the quick look on its own.
layers: dev
	$(BIN)/lint-imports

typecheck: dev
	$(BIN)/mypy

format: dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The full suite in its fast form: exhaustive checks marked `full` run in test-full. The
# tests run on JOBS workers (pytest-xdist; one per core by default; JOBS=0 runs them in
# this process): each worker starts its own brokers on free loopback ports.
JOBS ?= auto
test: lint typecheck
	$(PYTEST) -m "not full" -q -n $(JOBS)

test-full: lint typecheck
	$(PYTEST) -q -n $(JOBS)

bench: dev
	$(BIN)/python benchmarks/evaluator.py
	$(BIN)/python benchmarks/shoe_latency.py
	$(BIN)/python benchmarks/table.py
	$(BIN)/python benchmarks/recognizer.py
	$(BIN)/python benchmarks/latency.py
	$(BIN)/python benchmarks/displays.py

# The game-mathematics report: exact returns and long simulations, written to docs/math.md.
math: venv
	$(BIN)/tablectl math report --hands 2000000 --seed 1 --out docs/math.md

# Regenerate the built-in card profile from rendered cards (commit the result).
camera-profile: venv
	$(BIN)/python -m simulators.camera.builtin

# Retrain the learned index reader from corners rendered in many fonts (commit the result;
# from the dev extra, Pillow draws the TrueType glyphs and PyTorch fits the network, about
# 8 minutes on two cores; the product reads the ONNX file with OpenCV alone). The shipped
# model was made with
# Debian's fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf and fonts-urw-base35
# installed; faces missing are skipped, which gives another model.
index-model: dev
	$(BIN)/python tools/train_index_reader.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
	find controller -name '*.so' -delete
