#!/usr/bin/env bash
# Train on the GPU machine in one command (models/README.md, "Training on the GPU machine").
#
# Here, once:   make gpu-kit            (packs .gpukit/: faces as WebP, the Ultralytics wheel)
#               make gpu-kit START=W    (the same, with weights W to start from: .gpukit/start.pt)
# There:        bash models/gpu_kit.sh [BUDGET_S] [more models.gpu_kit run options]
#               through the device tool, with carry [".gpukit"] and timeout_s BUDGET_S + 60 or more.
# The weights, results.csv, report.json and run.log land in $OUT (the device tool's return folder).
set -euo pipefail
budget=${1:-480}
shift || true
python=${PYTHON:-python3}
out=${OUT:-/tmp/tabletally-gpu-out}
site=${KIT_SITE:-/tmp/tabletally-site}
mkdir -p "$out"
[ -f .gpukit/kit.json ] || { echo "error: no .gpukit/kit.json here: run make gpu-kit first and carry .gpukit" >&2; exit 2; }
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi: training on the CPU"
df -h /dev/shm /tmp 2>/dev/null || true
if ! "$python" -c "import ultralytics" 2>/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpukit/wheels/*.whl
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export YOLO_CONFIG_DIR=${YOLO_CONFIG_DIR:-/tmp/tabletally-yolo}
"$python" -m models.gpu_kit run --kit .gpukit --out "$out" --budget-s "$budget" "$@" 2>&1 | tee "$out/run.log"
