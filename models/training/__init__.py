"""The code that makes the card model: synthetic data, training, export and evaluation (models/README.md)."""
