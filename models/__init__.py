"""The card model: synthetic data, training, evaluation, export, and the shipped files."""
