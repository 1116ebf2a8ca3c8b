# The two commands of the README: `make demo` (the main job) and `make test`.
# Each creates or reuses a virtual environment in .venv and installs what it needs.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
GAMES ?= 200
WORKERS ?= 2

.PHONY: demo test lint bench list clean train-deps tournaments

## the torch build installed before the extras (whose bound, torch>=2.8, it then satisfies): the
## CPU build 2.13.0 by default; e.g. TORCH='torch==2.14.1' or extra pip flags in TORCH_PIP_ARGS
TORCH ?= torch==2.13.0
TORCH_PIP_ARGS ?=

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_PIP_ARGS) '$(TORCH)'
	$(PY) -m pip install --quiet -e '.[dev,train,integrations,openspiel,web,ray,render]'
	touch $@

## the main job: a short self-play run on Beasty Bar 2p (masked PPO against the opponent pool, a
## few minutes on 2 cores); ends with its evaluation table and learning-curve plot in runs/demo
TRAIN_STEPS ?= 2000000
demo: $(VENV)/.installed
	rm -rf runs/demo
	$(VENV)/bin/cardzoo train beasty_bar --players 2 --timesteps $(TRAIN_STEPS) \
		--eval-every 500000 --out runs/demo

## heuristic vs random tournaments on every game and player count
tournaments: $(VENV)/.installed
	$(VENV)/bin/cardzoo demo --games $(GAMES) --workers $(WORKERS)

## the whole test suite, lint first (2 workers; worksteal: an idle worker takes tests queued
## for the other, so a few minute-long tests at the end do not leave one worker waiting)
test: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -n $(WORKERS) --dist worksteal -q

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## the benchmark (docs/benchmark.md): decisions/s of env(), raw_env(), engine and encoder for every
## game and player count, memory, PettingZoo/RLCard peers and training throughput, in one run;
## writes results/bench.json and results/bench.png. Narrower: make bench BENCH_ARGS="cubirds --peers"
BENCH_ARGS ?= --peers --train --json results/bench.json --plot results/bench.png
bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,train,bench]'
	mkdir -p results
	$(VENV)/bin/cardzoo bench $(BENCH_ARGS)

list: $(VENV)/.installed
	$(VENV)/bin/cardzoo list

## stable-baselines3 + sb3-contrib + the CPU build of torch (for training scripts)
train-deps: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,train]'

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache

## mutation testing of the rules engines with mutmut, on a scratch copy (see docs/mutation.md);
## ENGINE=cubirds for one engine (default: every envs/*/game.py), MUTATION_ARGS="--rev HEAD" etc.
ENGINE ?=
MUTATION_ARGS ?=
.PHONY: mutation
mutation: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,mutation]'
	nice -n 10 $(PY) tools/mutation.py $(ENGINE) $(MUTATION_ARGS)
