"""Raspberry Pi deployment helpers (the doctor checks)."""
