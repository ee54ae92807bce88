"""Layer 4 of vision: the reading strategies (full, focused, far) and the detector that runs them."""
