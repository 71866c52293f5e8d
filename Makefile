# The two commands of the README: `make demo` and `make test`; `make lint` for CI.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
EXAMPLE ?= examples/jacobi2d.c
# `make model DATA=...`: mined pairs to add, a folder of C sources or a pairs JSONL.
DATA ?=
# Repositories of DATA held out for evaluation (comma-separated; default: by hash).
TEST_REPOS ?=

.PHONY: demo test lint venv clean model perf-model

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,train]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-train: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[train]'
	touch $@ $(VENV)/.installed

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/accls suggest $(EXAMPLE)
	$(BIN)/accls annotate $(EXAMPLE)

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The tiny default model, built from scratch on the CPU (under 20 minutes on 2
# cores): synthesized pairs (+ DATA), augmented; finetune, a reward round,
# evaluate, export to models/accls-tiny/. See training/README.md.
TRAIN := $(BIN)/accls-train
RUNS  := training/runs
MDATA := $(RUNS)/data
TINY  := training/configs/tiny.toml
model: $(VENV)/.installed-train
	rm -rf $(MDATA) $(RUNS)/accls-tiny $(RUNS)/accls-tiny-reward
	mkdir -p $(MDATA)
	$(TRAIN) synthesize --count 1200 --seed 0 --out $(MDATA)/synth.jsonl
ifneq ($(DATA),)
	@[ -e "$(DATA)" ] || { echo "make model: DATA=$(DATA): no such file or folder" >&2; exit 2; }
	if [ -d "$(DATA)" ]; then \
	    $(TRAIN) mine "$(DATA)" --out $(MDATA)/mined.jsonl --test-repos "$(TEST_REPOS)"; \
	else $(TRAIN) ingest "$(DATA)" --out $(MDATA)/mined.jsonl --test-repos "$(TEST_REPOS)"; fi
endif
	cat $(MDATA)/synth.jsonl $(if $(DATA),$(MDATA)/mined.jsonl) > $(MDATA)/base.jsonl
	$(TRAIN) augment --data $(MDATA)/base.jsonl --out $(MDATA)/pairs.jsonl
	$(TRAIN) finetune --config $(TINY) --data $(MDATA)/pairs.jsonl --out $(RUNS)/accls-tiny
	$(TRAIN) reward --config $(TINY) --model $(RUNS)/accls-tiny \
	    --data $(MDATA)/pairs.jsonl --out $(RUNS)/accls-tiny-reward
	$(TRAIN) synthesize --count 300 --seed 1 --out $(MDATA)/heldout.jsonl
	$(TRAIN) evaluate --data $(if $(DATA),$(MDATA)/pairs.jsonl --split test,$(MDATA)/heldout.jsonl --split all) \
	    --fresh --limit 80 --model $(RUNS)/accls-tiny-reward/final --out $(RUNS)/accls-tiny-eval.json
	$(TRAIN) export --run $(RUNS)/accls-tiny-reward --name accls-tiny --out models \
	    --report $(RUNS)/accls-tiny-eval.json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# The cost model's fitted weights (models/perf/): `accls bench --per-loop --all` on
# the fixtures (and, with DATA=folder of dev-sources.jsonl, the Parallel Research
# Kernels), then `accls-train perf`. Run it on the machine the code will run on,
# quiet; the data card says where and how it was measured.
PERF_DB := $(RUNS)/perf/bench.jsonl
perf-model: $(VENV)/.installed-train
	mkdir -p $(RUNS)/perf
	$(BIN)/python benchmarks/perf_measure.py --fixtures --store $(PERF_DB) \
	    --accls $(BIN)/accls $(if $(DATA),--kernels --data $(DATA))
	$(TRAIN) perf $(PERF_DB) --out models/perf
