"""Photos the card-model tests build by hand."""

from __future__ import annotations

import cv2
import numpy as np

TABLE_BGR = (96, 120, 90)  # a plain green-grey table


def on_table(face: np.ndarray, width: int = 200) -> np.ndarray:
    """A BGRA face ``width`` pixels wide, centred on a plain 640x480 table (BGR)."""
    photo = np.full((480, 640, 3), TABLE_BGR, np.uint8)
    card = cv2.resize(
        face, (width, round(face.shape[0] * width / face.shape[1])), interpolation=cv2.INTER_AREA
    )
    h, w = card.shape[:2]
    y, x = (480 - h) // 2, (640 - w) // 2
    alpha = card[:, :, 3:4].astype(np.float32) / 255
    roi = photo[y : y + h, x : x + w].astype(np.float32)
    photo[y : y + h, x : x + w] = (card[:, :, :3] * alpha + roi * (1 - alpha)).astype(np.uint8)
    return photo
