"""Layer 2 of vision: the model runtimes, each one pass of the card model behind
:class:`vision.runtimes.protocols.ModelPass`, the runtime choice, and the whole-photo detectors."""
