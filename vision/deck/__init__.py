"""Layer 6 of vision: a taught deck's memory and the shelf of taught decks."""
