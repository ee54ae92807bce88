"""The corner reader's patches (data) and its training and export (train)."""
