"""Shared test configuration."""

import os

# Kivy must not parse pytest's argv, and must keep its config out of the user's home.
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
