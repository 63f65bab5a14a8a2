# Two commands for a fresh machine: `make demo` and `make test`. Everything else is set up here.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev
# The editable install records which folders are packages: a new __init__.py must reinstall,
# or the old record makes that package a bare namespace outside this folder.
PACKAGES := $(shell find companion vision web_ui -name __init__.py 2>/dev/null)

.PHONY: demo test lint bench system-deps clean

$(PY):
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); \
	  else echo "python3 cannot make a venv: install it with 'sudo apt-get install python3-venv'"; exit 1; fi; }
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml $(PACKAGES) | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEVSTAMP): pyproject.toml $(PACKAGES) | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/companion serve --sim --host $(HOST) --port $(PORT)

system-deps:
	@sh tests/system_deps.sh

test: $(DEVSTAMP) system-deps
	$(PY) -m ruff check .
	$(PY) -m pytest -n 2 --dist loadgroup tests

lint: $(DEVSTAMP)
	$(PY) -m ruff check .

bench: $(DEVSTAMP)
	$(PY) -m tests.bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
