"""Layer 1 of vision: errors, value types, geometry, and photos in (decoding and checks)."""
