"""The kiosk's screens, one module each, on :mod:`ui.screens.base`; the app (:mod:`ui.app`) imports them."""
