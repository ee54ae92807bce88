"""Camera sources, the card detector (ONNX Runtime) and cards from photos. Knows nothing of games."""
