"""Layer 3 of vision: the corner reader, a second model that reads each corner found again."""
