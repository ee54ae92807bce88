# TableTally. `make run` starts the kiosk, `make test` runs the whole suite; both set up .venv first.
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tabletally-installed

.PHONY: run test lint typecheck pytest bench demo catalogs translations train evaluate synth clean setup pi-check

$(STAMP): pyproject.toml deploy/dev-setup.sh
	VENV=$(VENV) bash deploy/dev-setup.sh
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP) catalogs
	$(BIN)/tabletally kiosk

test: $(STAMP) catalogs lint typecheck pytest

# The kiosk's languages (ui/i18n.py): the .po catalogs are the source, the .mo files are compiled from
# them here (and by the package build), never committed. `make translations` re-extracts every marked
# string into ui/locale/tabletally.pot, merges it into each catalog, and compiles; then translate what
# it added (msgstr "") and run it again.
LOCALES := ne hi
CATALOGS := $(foreach l,$(LOCALES),ui/locale/$(l)/LC_MESSAGES/tabletally.mo)

catalogs: $(CATALOGS)

ui/locale/%/LC_MESSAGES/tabletally.mo: ui/locale/%/LC_MESSAGES/tabletally.po | $(STAMP)
	$(BIN)/pybabel compile --statistics -D tabletally -l $* -i $< -o $@

translations: $(STAMP)
	$(BIN)/pybabel extract -F ui/locale/babel.cfg -o ui/locale/tabletally.pot -k ngettext:1,2 \
	  --project TableTally --version 0.1.0 --copyright-holder "TableTally developers" \
	  --add-location=file --sort-output --no-wrap .
	$(BIN)/pybabel update -i ui/locale/tabletally.pot -d ui/locale -D tabletally --no-wrap --ignore-obsolete
	$(MAKE) catalogs

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Two workers (pytest-xdist) by default, one per core of the reference machine; work stealing keeps both
# busy when one draws the long kiosk walks. PYTEST_WORKERS=0 runs in this process, one test at a time.
PYTEST_WORKERS ?= 2
pytest: $(STAMP) catalogs
	$(BIN)/pytest -q $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist worksteal)

bench: $(STAMP)
	$(BIN)/python -m vision.devtools.bench

demo: $(STAMP) catalogs   # screenshots/ in English, screenshots/ne and screenshots/hi in Nepali and Hindi
	$(BIN)/python -m ui.devtools.demo --out screenshots
	$(BIN)/python -m ui.devtools.demo --out screenshots/ne --language ne
	$(BIN)/python -m ui.devtools.demo --out screenshots/hi --language hi
	$(BIN)/python -m ui.devtools.readme_shots screenshots docs/images

synth: $(STAMP)
	$(BIN)/python -m models.training.data.synth --out datasets/synth --count 3200 --val-count 400 --seed 1   # as models/train.yaml draws it

train: $(STAMP)   # START=W starts the run from weights W (models/README.md, "Reproduce")
	$(BIN)/python -m models.training.train $(if $(START),--start-from $(START))

evaluate: $(STAMP)   # models/eval/report.{md,json}, then the model card's results table from them
	$(BIN)/python -m models.training.evaluate --camera datasets/camera
	$(BIN)/python -m models.training.card

# The Pi's install and kiosk on Debian arm64 roots (Bookworm, Trixie) under qemu-user-static, against this
# machine's reading (deploy/README.md, "Checking the install on arm64"). Root, network; tens of minutes a
# release; not part of make test. RELEASES=trixie checks one; PI_CHECK_REV=HEAD a commit.
pi-check: $(STAMP) catalogs
	nice -n 10 bash deploy/pi-check.sh $(RELEASES)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
