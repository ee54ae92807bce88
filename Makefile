# TableTally. `make run` starts the kiosk, `make test` runs the whole suite; both set up .venv first.
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tabletally-installed

.PHONY: run test lint typecheck pytest bench demo train evaluate synth gpu-kit clean setup

$(STAMP): pyproject.toml deploy/dev-setup.sh
	VENV=$(VENV) bash deploy/dev-setup.sh
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(BIN)/tabletally kiosk

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python -m vision.bench

demo: $(STAMP)
	$(BIN)/python -m ui.demo --out screenshots

synth: $(STAMP)
	$(BIN)/python -m models.synth --out datasets/synth --count 3200 --val-count 400 --seed 1   # as models/train.yaml draws it

train: $(STAMP)
	$(BIN)/python -m models.train

evaluate: $(STAMP)
	$(BIN)/python -m models.evaluate

gpu-kit: $(STAMP)   # what the GPU machine trains from: bash models/gpu_kit.sh there (models/README.md)
	test -f datasets/faces/standard/corners.json || $(BIN)/python -m models.faces --out datasets/faces
	$(BIN)/python -m models.gpu_kit pack $(if $(START),--start-from $(START))

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
