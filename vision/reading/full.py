"""The full reading: every view of every photo (the whole photo in each turn, and the crops the
detector chooses), all voting on each corner: :meth:`vision.reading.detector.CardDetector.read_views`
over a photo's :class:`~vision.reading.passes.Passes`."""

from __future__ import annotations

from vision.base.types import Detection
from vision.reading.passes import Passes
from vision.reading.rules import PassDetector


def read_full(detector: PassDetector, passes: Passes) -> list[Detection]:
    """The kiosk's full reading (:meth:`CardDetector.detect`) from ``passes``: the same views, the same
    vote; with a store, a photo read before costs no pass."""
    return list(detector.read_views(passes.image, passes.whole, passes.tiled))
