# Every target creates what it needs: a virtual environment in $(VENV) with the package installed.
PYTHON ?= python3
VENV ?= .venv
# The torch build to install. The default is the CPU wheel of this project's machines; elsewhere
# use e.g. TORCH_SPEC="torch --index-url https://download.pytorch.org/whl/cpu" or a CUDA build.
TORCH_SPEC ?= torch==2.13.0
# Test processes (pytest-xdist): the kernels compile in each that needs them, so more processes
# than cores only add compiling; auto = one per core.
TEST_WORKERS ?= auto
# The markers `make test-unit` leaves out (pyproject.toml's [tool.pytest.ini_options] describes them).
UNIT := not slow and not browser and not packaging and not training and not notebooks and not processes
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-unit test-all run demo speed docs lint typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH_SPEC)
	$(BIN)/python -m pip install -q -e ".[test,train,arena,render,web,torchrl,docs]"
	$(BIN)/hearts-compile  # the kernels, compiled once here rather than in a first game or in each test process
	touch $(STAMP)

test: $(STAMP)  ## the test suite without the slow tests
	$(BIN)/python -m pytest -m "not slow" -q -n $(TEST_WORKERS) --dist worksteal

test-unit: $(STAMP)  ## the fast unit tests alone: `make test` less the browser, packaging, training, notebooks and processes tests
	$(BIN)/python -m pytest -m "$(UNIT)" -q -n $(TEST_WORKERS) --dist worksteal

test-all: $(STAMP)  ## every test, slow ones included
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal

run: $(STAMP)  ## the main job: train a small agent, benchmark it and the shipped agent against the baselines
	$(BIN)/hearts-main-job $(ARGS)

demo: $(STAMP)  ## one seeded 4-player game among random players, printed hand by hand
	$(BIN)/hearts-demo --seed 0

speed: $(STAMP)  ## engine speed against OpenSpiel's hearts, then the regression check (speed/recorded_ratios.json)
	$(BIN)/python speed/speed_core.py
	$(BIN)/python speed/speed_regression.py

docs: $(STAMP)  ## the documentation site, into site/; warnings are errors (a broken link or reference fails it)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lint: $(STAMP)  ## ruff: the lint rules and the formatting
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

typecheck: $(STAMP)  ## mypy on the package (its hints ship with it: py.typed); settings in pyproject.toml
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache site
