"""Give the exported corner reader a second output: its penultimate features (what a taught deck remembers).

The reader (``models/reader.onnx``) is a small convolutional network whose last layer is one linear map
(``Gemm``) from a pooled 256-value feature vector to the 54 logits. A taught deck (:mod:`vision.deck.memory`)
keeps
those features of its corners, so the graph is edited, not retrained: the ``Gemm``'s input is named as a
second graph output, ``features`` (N x 256). Nothing else changes; the script checks that the ``logits``
output is bit-identical to the original model's on sample inputs (random patches and, when given, patches
cut from photos) before it writes anything, and writes through a temporary file and a rename.

    python -m models.training.reader.features                       # models/reader.onnx, in place
    python -m models.training.reader.features --model M.onnx --out N.onnx

Running it on a reader that already has the output changes nothing (exit 0, "already has").
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from vision.reader.corners import DEFAULT_READER, FEATURES_OUTPUT, PATCH

LOGITS_OUTPUT = "logits"


def with_features(model: Any) -> Any:
    """A copy of the ONNX ``model`` with the last ``Gemm``'s input exposed as the ``features`` output.

    Raises ValueError when the graph is not the reader's (no single final ``Gemm`` giving ``logits``)."""
    import onnx
    from onnx import TensorProto, helper

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    if any(o.name == FEATURES_OUTPUT for o in graph.output):
        return copy
    gemms = [n for n in graph.node if n.op_type == "Gemm" and LOGITS_OUTPUT in n.output]
    if len(gemms) != 1:
        raise ValueError(f"expected one Gemm node giving {LOGITS_OUTPUT!r}, found {len(gemms)}")
    feature_tensor = gemms[0].input[0]
    weight = next((t for t in graph.initializer if t.name == gemms[0].input[1]), None)
    if weight is None or len(weight.dims) != 2:
        raise ValueError("the final Gemm's weight is not a constant matrix")
    width = int(weight.dims[1])
    # identity node: the output gets its own, stable name whatever the exporter called the tensor
    graph.node.append(helper.make_node("Identity", [feature_tensor], [FEATURES_OUTPUT], name="features"))
    graph.output.append(helper.make_tensor_value_info(FEATURES_OUTPUT, TensorProto.FLOAT, ["n", width]))
    onnx.checker.check_model(copy)
    return copy


def sample_inputs(seed: int = 0, n: int = 64) -> np.ndarray:
    """Patches to compare the two models on: uniform noise, smooth blobs and flat greys (N x 3 x S x S)."""
    rng = np.random.default_rng(seed)
    noise = rng.random((n // 2, 3, PATCH, PATCH), dtype=np.float32)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32) / PATCH
    blobs = np.stack(
        [
            np.stack([np.sin(xx * f + p) * 0.5 + 0.5 for p in rng.uniform(0, 6, 3)])
            for f in rng.uniform(2, 30, n // 4)
        ]
    ).astype(np.float32)
    greys = np.broadcast_to(
        rng.random((n - n // 2 - n // 4, 1, 1, 1), dtype=np.float32), (n - n // 2 - n // 4, 3, PATCH, PATCH)
    )
    return np.ascontiguousarray(np.concatenate([noise, blobs, greys]))


def compare(original: Path, edited_bytes: bytes, inputs: np.ndarray) -> tuple[bool, int]:
    """Whether the edited model's logits equal the original's bit for bit on ``inputs`` (batches of 1, 7
    and all), and the width of its features."""
    import onnxruntime as ort

    def session(source: str | bytes) -> Any:
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])

    before, after = session(str(original)), session(edited_bytes)
    name = before.get_inputs()[0].name
    same, width = True, 0
    for batch in (inputs[:1], inputs[:7], inputs):
        want = before.run([LOGITS_OUTPUT], {name: batch})[0]
        got, feats = after.run([LOGITS_OUTPUT, FEATURES_OUTPUT], {name: batch})
        only = after.run([LOGITS_OUTPUT], {name: batch})[0]
        same = same and want.tobytes() == got.tobytes() == only.tobytes()
        width = int(feats.shape[1])
    return same, width


def add_features(model_path: Path, out: Path | None = None) -> str:
    """Write ``model_path`` with the ``features`` output to ``out`` (default: over it), through a temporary
    file and a rename, once its logits are checked bit-identical; what was done, as a line. ValueError
    (nothing written) for a file that is not the reader or whose logits would change."""
    import onnx

    out = out or model_path
    try:
        model = onnx.load(str(model_path))
    except Exception as exc:  # onnx raises its own decode errors as well as OSError
        raise ValueError(f"cannot read {model_path}: {exc}") from exc
    if any(o.name == FEATURES_OUTPUT for o in model.graph.output):
        return f"{model_path} already has the {FEATURES_OUTPUT!r} output"
    data = with_features(model).SerializeToString()
    same, width = compare(model_path, data, sample_inputs())
    if not same:
        raise ValueError(
            f"{model_path}: the edited model's logits differ from the original's; nothing written"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=out.name, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, model_path.stat().st_mode & 0o777)  # mkstemp makes it 0600; keep the model's mode
    os.replace(tmp, out)
    return f"{out}: added {FEATURES_OUTPUT!r} (N x {width}); logits bit-identical on the sample inputs"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_READER, help="the reader to edit")
    ap.add_argument("--out", type=Path, help="where to write it (default: over --model)")
    args = ap.parse_args(argv)
    try:
        print(add_features(args.model, args.out))
    except ValueError as exc:
        print(f"models.training.reader.features: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
