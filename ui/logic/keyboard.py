"""The on-screen keyboard for player names: Latin (upper/lower case) and Devanagari layouts.

Keys are plain strings; special keys are named by the constants below. The Kivy widget only draws the rows of
the current layout and calls :meth:`NameKeyboard.press`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BACKSPACE = "\u232b"
SPACE = "space"
SHIFT = "\u21e7"
SWITCH = "\u0926\u0947\u0935"  # देव / ABC: switch script
LATIN_NAME = "ABC"
DONE = "OK"

LATIN_UPPER = (
    tuple("QWERTYUIOP"),
    tuple("ASDFGHJKL"),
    (SHIFT, *tuple("ZXCVBNM"), BACKSPACE),
)
LATIN_LOWER = tuple(tuple(k.lower() if len(k) == 1 else k for k in row) for row in LATIN_UPPER)
# Devanagari: independent vowels, consonants, then vowel signs and marks (virama last).
DEVANAGARI = (
    tuple("अआइईउऊएऐओऔ"),
    tuple("कखगघङचछजझञ"),
    tuple("टठडढणतथदधन"),
    tuple("पफबभमयरलवश"),
    ("ष", "स", "ह", "ा", "ि", "ी", "ु", "ू", "े", "ै"),
    ("ो", "ौ", "ं", "ँ", "ः", "्", "ृ", "क्ष", "ज्ञ", BACKSPACE),
)
BOTTOM_ROW = (SWITCH, SPACE, DONE)
MAX_LENGTH = 16


@dataclass
class NameKeyboard:
    text: str = ""
    script: str = "latin"
    upper: bool = True
    done: bool = False
    max_length: int = MAX_LENGTH
    history: list[str] = field(default_factory=list)

    def rows(self) -> tuple[tuple[str, ...], ...]:
        keys = DEVANAGARI if self.script == "devanagari" else LATIN_UPPER if self.upper else LATIN_LOWER
        switch = LATIN_NAME if self.script == "devanagari" else SWITCH
        return (*keys, (switch, SPACE, DONE))

    def press(self, key: str) -> str:
        """Apply one key; returns the new text."""
        if key == BACKSPACE:
            self.text = self.text[:-1]
        elif key == SPACE:
            if self.text and not self.text.endswith(" "):
                self._insert(" ")
        elif key == SHIFT:
            self.upper = not self.upper
        elif key in (SWITCH, LATIN_NAME):
            self.script = "latin" if self.script == "devanagari" else "devanagari"
        elif key == DONE:
            self.done = True
        else:
            self._insert(key)
            # Like a phone keyboard: a capital first letter, then lower case.
            if self.script == "latin" and self.upper and len(self.text) >= 1:
                self.upper = False
        return self.text

    def _insert(self, chars: str) -> None:
        if len(self.text) + len(chars) <= self.max_length:
            self.text += chars

    def clear(self) -> None:
        self.text = ""
        self.upper = True
        self.done = False
