"""Helpers of the vision tests: raw model outputs, a tiny real ONNX model, photos, a fake Pi camera."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.base.types import CARD_CODES

N_CLASSES = len(CARD_CODES)


def raw_output(
    boxes_xywh: Sequence[tuple[float, float, float, float]],
    scores: Sequence[dict[str, float]],
    anchors: int | None = None,
) -> np.ndarray:
    """A model output (1, 4 + 53, N): the given boxes (input pixels) and class scores, zeros after."""
    n = anchors or max(len(boxes_xywh), 1)
    out = np.zeros((1, 4 + N_CLASSES, n), dtype=np.float32)
    for k, (box, score) in enumerate(zip(boxes_xywh, scores, strict=True)):
        out[0, :4, k] = box
        for code, value in score.items():
            out[0, 4 + CARD_CODES.index(code), k] = value
    return out


def write_constant_model(
    path: Path, output: np.ndarray, imgsz: int | tuple[int, int] | None = 320, opset: int = 17
) -> Path:
    """A real ONNX file whose output is ``output`` whatever the image (the image still flows through).

    ``imgsz``: a square side, (height, width), or None for a dynamic height and width.
    """
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    dims: list[Any] = (
        ["height", "width"] if imgsz is None else list((imgsz, imgsz) if isinstance(imgsz, int) else imgsz)
    )
    const = numpy_helper.from_array(output.astype(np.float32), name="const_out")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], axes=[0, 1, 2, 3], keepdims=0),
        helper.make_node("Mul", ["mean", "zero"], ["nothing"]),
        helper.make_node("Add", ["const_out", "nothing"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "constant_cards",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, *dims])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(output.shape))],
        initializer=[const, numpy_helper.from_array(np.zeros((), dtype=np.float32), name="zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())
    return path


def table_photo(width: int = 640, height: int = 480, seed: int = 0) -> np.ndarray:
    """A non-blank BGR photo: green cloth with some white rectangles (cards) and noise."""
    rng = np.random.default_rng(seed)
    image = np.full((height, width, 3), (40, 110, 30), dtype=np.uint8)
    for k in range(4):
        x, y = 40 + 140 * k, 60 + 30 * k
        cv2.rectangle(image, (x, y), (x + 90, y + 130), (245, 245, 245), cv2.FILLED)
        cv2.putText(image, str(k + 2), (x + 5, y + 25), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    noise = rng.integers(0, 8, size=image.shape, dtype=np.uint8)
    return cv2.add(image, noise)


class FakePicamera2:
    """Stands in for picamera2.Picamera2 and records what the code under test asked of it."""

    cameras: list[dict[str, Any]] = [{"Model": "imx708", "Num": 0}]
    instances: list[FakePicamera2] = []
    fail_on: str | None = None  # "start" or "capture": raise there, like a camera pulled off its cable
    has_autofocus = True
    frame_shape = (2592, 4608, 3)

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num >= len(self.cameras):
            raise IndexError("camera index out of range")
        self.camera_num = camera_num
        self.sensor_resolution = (self.frame_shape[1], self.frame_shape[0])
        self.camera_controls: dict[str, Any] = {"ExposureTime": (1, 100000, None)}
        if self.has_autofocus:
            self.camera_controls["AfMode"] = (0, 2, 0)
        self.calls: list[str] = []
        self.config: dict[str, Any] | None = None
        self.controls: dict[str, Any] = {}
        self.started = False
        self.closed = False
        self.frames = 0
        type(self).instances.append(self)

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return list(cls.cameras)

    def create_still_configuration(self, main: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        self.calls.append("create_still_configuration")
        return {"use_case": "still", "main": dict(main or {}), **kwargs}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append("configure")
        self.config = config

    def start(self) -> None:
        self.calls.append("start")
        if self.fail_on == "start":
            raise RuntimeError("Failed to start camera: device busy")
        self.started = True

    def capture_metadata(self) -> dict[str, Any]:
        self.calls.append("capture_metadata")
        self.frames += 1
        metadata: dict[str, Any] = {
            "ExposureTime": 16000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.9, 1.6),
            "AeLocked": self.frames >= 3,
        }
        if self.has_autofocus:
            metadata["LensPosition"] = 1.25  # dioptres: about 0.8 m, a camera over a table
        return metadata

    def autofocus_cycle(self) -> bool:
        self.calls.append("autofocus_cycle")
        return True

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append("set_controls")
        self.controls.update(controls)

    def capture_array(self, name: str = "main") -> np.ndarray:
        self.calls.append(f"capture_array:{name}")
        if self.fail_on == "capture":
            raise RuntimeError("Camera frontend has timed out!")
        if name == "lores":  # YUV420: the grey plane, then the two colour planes (a blue-grey picture)
            assert self.config is not None, "lores asked for before configure()"
            w, h = self.config["lores"]["size"]
            yuv = np.full((h * 3 // 2, w), 128, dtype=np.uint8)
            yuv[:h] = 90
            yuv[h : h + h // 4] = 170  # U: towards blue
            return yuv
        frame = np.zeros(self.frame_shape, dtype=np.uint8)
        frame[..., 0] = 200  # blue channel first: picamera2's RGB888 is B, G, R in memory
        return frame

    def stop(self) -> None:
        self.calls.append("stop")
        self.started = False

    def close(self) -> None:
        self.calls.append("close")
        self.closed = True


def write_constant_reader(folder: Path, logits: dict[str, float], size: int = 48) -> Path:
    """A real corner-reader ONNX file (``reader.onnx`` + ``reader.json`` in ``folder``) answering every
    patch with the same logits: ``logits`` by code ("none" included), -10 for the rest."""
    onnx = pytest.importorskip("onnx")
    import json

    from onnx import TensorProto, helper, numpy_helper

    from vision.reader.corners import NONE_CLASS

    names = [*CARD_CODES, NONE_CLASS]
    row = np.full((1, len(names)), -10.0, dtype=np.float32)
    for code, value in logits.items():
        row[0, names.index(code)] = value
    nodes = [
        helper.make_node("ReduceMean", ["patches"], ["mean"], axes=[1, 2, 3], keepdims=0),
        helper.make_node("Unsqueeze", ["mean", "axis"], ["column"]),
        helper.make_node("Mul", ["column", "zero"], ["nothing"]),
        helper.make_node("Add", ["row", "nothing"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes,
        "constant_reader",
        [helper.make_tensor_value_info("patches", TensorProto.FLOAT, ["n", 3, size, size])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", len(names)])],
        initializer=[
            numpy_helper.from_array(row, name="row"),
            numpy_helper.from_array(np.zeros((), dtype=np.float32), name="zero"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), name="axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "reader.onnx"
    path.write_bytes(model.SerializeToString())
    (folder / "reader.json").write_text(json.dumps({"names": names, "size": size, "context": 1.5}))
    return path
