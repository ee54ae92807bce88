"""Layer 5 of vision: cards from corners, hands, seats, and the camera's place."""
