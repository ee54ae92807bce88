"""The fake detector shipped beside the real one: scripted readings per photo, recorded calls."""

from __future__ import annotations

import numpy as np
import pytest

from vision.base.errors import ImageError, InvalidValueError, ModelError
from vision.base.types import Detection
from vision.pipeline import read_cards
from vision.runtimes.fake import FakeDetector

AS = Detection("AS", 0.9, (10, 10, 30, 40))
KH = Detection("KH", 0.8, (200, 10, 220, 40))


def photo(value: int = 0) -> np.ndarray:
    return np.random.default_rng(value).integers(0, 255, (120, 160, 3), dtype=np.uint8)


def test_each_photo_gets_the_next_scripted_reading_and_the_script_loops() -> None:
    fake = FakeDetector([AS], [AS, KH])
    assert [fake.detect(photo(k)) for k in range(3)] == [[AS], [AS, KH], [AS]]
    assert len(fake.photos) == 3 and fake.loaded


def test_without_loop_a_photo_past_the_script_is_a_model_error() -> None:
    fake = FakeDetector([AS], loop=False)
    assert fake.detect(photo()) == [AS]
    with pytest.raises(ModelError, match="no more scripted readings"):
        fake.detect(photo())
    assert len(fake.photos) == 1


def test_a_reading_may_be_a_function_of_the_photo() -> None:
    fake = FakeDetector(lambda image: [AS] if image.shape[1] > 100 else [])
    assert fake.detect(photo()) == [AS]
    assert fake.detect(np.zeros((50, 50, 3), np.uint8)) == []


def test_it_checks_photos_as_the_real_detector_does_and_records_only_good_ones() -> None:
    fake = FakeDetector([AS])
    with pytest.raises(ImageError, match="HxWx3"):
        fake.detect(np.zeros((10, 10), np.uint8))
    assert fake.photos == []


def test_a_load_error_stands_for_a_missing_model_at_every_try() -> None:
    fake = FakeDetector(load_error=ModelError("model file cards.onnx not found"))
    for _ in range(2):
        with pytest.raises(ModelError, match="not found"):
            fake.load()
    with pytest.raises(ModelError, match="not found"):
        fake.detect(photo())
    assert fake.loads == 3 and not fake.loaded and fake.photos == []


def test_a_script_of_anything_but_detections_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="needs at least one scripted reading"):
        FakeDetector()
    with pytest.raises(InvalidValueError, match="must hold Detection values"):
        FakeDetector([("AS", 0.9)])  # type: ignore[list-item]
    with pytest.raises(InvalidValueError, match="must give Detection values"):
        FakeDetector(lambda image: ["AS"]).detect(photo())  # type: ignore[list-item]


def test_the_pipeline_pairs_and_groups_what_the_fake_finds() -> None:
    reading = read_cards(photo(), FakeDetector([AS, KH]), n_hands=2)
    assert sorted(reading.codes) == ["AS", "KH"] and len(reading.hands) == 2
