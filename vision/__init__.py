"""Camera sources, the card detector and cards from photos. Knows nothing of games.

The package is in layers; a module imports only from its own layer or the layers below it (the test
``tests/vision/test_layers.py`` holds every import, deferred and ``TYPE_CHECKING`` ones included, to this
order, and finds any import circle):

1. ``vision.base``: errors, value types, geometry, photos in (decoding, the checks every photo passes).
2. ``vision.runtimes``: one pass of the model (:class:`vision.runtimes.protocols.ModelPass`) on ONNX
   Runtime, NCNN or OpenVINO, the runtime choice (:mod:`vision.runtimes.choice`), the model's files and
   settings, and the whole-photo detectors of Ultralytics and the tests' fake
   (:class:`vision.runtimes.protocols.Detector`).
3. ``vision.reader``: the corner reader, which sees a taught deck through
   :class:`vision.reader.corners.TaughtDeck`.
4. ``vision.reading``: the reading strategies (full, focused, far) over a photo's model passes, and the
   detector that runs them (:class:`vision.reading.detector.CardDetector`).
5. ``vision.table``: cards from corners, hands, seats, and the camera's place judged from them.
6. ``vision.deck``: a taught deck's memory and where decks are kept.
7. On top: :mod:`vision.pipeline` (photo in, cards out), :mod:`vision.cameras`, :mod:`vision.teach`
   (teaching a deck).

``vision.devtools`` (benchmarks, evaluations, the view store) is for development only: nothing above
imports it, and the wheel the Pi installs leaves it out.
"""
