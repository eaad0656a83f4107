# The whole set-up on a fresh machine with Python 3.11: `make run` or `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench

# setup.py compiles ratings_core/inlined.py (mypyc): a change to either is built again
$(STAMP): pyproject.toml setup.py ratings_core/inlined.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/clubrating run

test: $(STAMP)
	bash .ci/system-packages
	$(BIN)/ruff check ratings_core bot tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/replay.py
	$(BIN)/python bench/replay_csv.py --runs 3
	$(BIN)/python bench/service.py --part correction
	$(BIN)/python bench/flood.py
