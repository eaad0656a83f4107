# The whole set-up on a fresh machine with Python 3.11: `make run` or `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# what running needs (the locked dependencies and the project), then the test and benchmark
# tools on top for `make test`
RUNNABLE := $(VENV)/.runnable
STAMP := $(VENV)/.installed

.PHONY: run test lint bench

# setup.py compiles ratings_core/inlined.py (mypyc): a change to either is built again
$(RUNNABLE): pyproject.toml setup.py ratings_core/inlined.py requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(RUNNABLE)

$(STAMP): $(RUNNABLE)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

run: $(RUNNABLE)
	$(BIN)/clubrating run

test: $(STAMP)
	bash .ci/system-packages
	$(BIN)/ruff check ratings_core bot tests bench tools
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/replay_csv.py --runs 3
	$(BIN)/python bench/service.py --part correction
	$(BIN)/python bench/flood.py
	$(BIN)/python bench/web.py
