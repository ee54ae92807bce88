"""Synthetic photos of cards: deck designs, rendered faces, procedural decks, scenes, the dataset writer."""
