#!/usr/bin/env bash
# Sets up the development environment: the Debian packages the project uses (card art for
# synthetic data, fonts, rsvg-convert, shellcheck, Xvfb) and .venv with the project installed
# editable plus everything its tests need. Safe to run again; `make test` and `make run` call it.
set -euo pipefail

cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}

APT_PACKAGES=(
  kdegames-card-data-kf5   # SVG card decks: synthetic training data
  gnome-cards-data         # more SVG card decks (aisleriot)
  librsvg2-bin             # rsvg-convert renders the SVG cards
  fonts-noto-core          # Devanagari (Noto Sans Devanagari) for player names
  fonts-urw-base35         # index letterforms of the procedural training decks (models/training/data/procedural.py):
  fonts-liberation         #   classic serifs (Nimbus Roman, C059, P052, Bookman), narrow sans
  fonts-freefont-ttf       #   (Nimbus Sans Narrow, Liberation Sans Narrow, Roboto Condensed) and
  fonts-crosextra-carlito  #   more sans families; DejaVu comes with the others
  fonts-lato
  fonts-open-sans
  fonts-roboto-unhinted
  fonts-bebas-neue         #   tall narrow and squarish digits, like the ivr_edinburgh deck's index
  fonts-dosis              #   (Bebas Neue, Dosis, Jura, B612, OCR-B), and two more sans (Inter,
  fonts-jura               #   League Spartan)
  fonts-b612
  fonts-ocr-b
  fonts-inter
  fonts-league-spartan
  shellcheck               # lints deploy/*.sh in the test suite
  xvfb                     # optional virtual display for the kiosk tests
  libmtdev1                # Kivy's touch input library
  systemd                  # systemd-analyze verify on the kiosk unit
  chromium                 # headless browser: the phone page's tests and screenshots (tests/share)
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "dev-setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "dev-setup: warning: missing Debian packages (install them with sudo apt-get install): ${missing[*]}" >&2
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "dev-setup: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
# torch and torchvision first, pinned to the builds that lie on this machine's disk; Ultralytics
# would otherwise pull a newer CUDA build from the registry.
"$VENV/bin/python" -m pip install -q "torch==2.14.1" "torchvision==0.29.1"
"$VENV/bin/python" -m pip install -q -e ".[train,dev,openvino]"
echo "dev-setup: done"
