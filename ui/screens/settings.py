"""Settings: language and digits, the camera, the phones' scoreboard, the deck, and the record."""

from __future__ import annotations

import io
from typing import Any

from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image

from ui.design import (
    MUTED,
    TOUCH,
    WARN,
    font,
    landscape,
)
from ui.i18n import DEVANAGARI, LANGUAGES, N_, WESTERN, _, digits, language, ngettext, num
from ui.logic.scan import ScanResult
from ui.screens.base import Base, short
from ui.screens.deck import deck_rows
from ui.widgets.basic import AutoLbl, Btn, Lbl, hbox, scroller, vbox

CAMERA_CHOICES = (
    ("auto", N_("Automatic")),
    ("pi", N_("Pi camera")),
    ("webcam", N_("USB webcam")),
    ("demo", N_("Demo photos")),
)


def qr_texture(png: bytes) -> Any:
    """A QR code's PNG as a texture that stays sharp when scaled up (the phones' address in Settings)."""
    from kivy.core.image import Image as CoreImage

    texture = CoreImage(io.BytesIO(png), ext="png").texture
    texture.mag_filter = "nearest"
    texture.min_filter = "nearest"
    return texture


class SettingsScreen(Base):
    test_message = ""

    def build(self, root: Any) -> None:
        root.add_widget(self.top_bar(_("Settings"), back=(_("Home"), self.app.go_home)))
        body = vbox(size_hint_y=None)
        self.language_rows(body)
        current = self.app.camera_spec()
        body.add_widget(AutoLbl(_("Camera"), "m", bold=True, color=MUTED))
        row = (
            hbox(size_hint_y=None, height=TOUCH)
            if landscape()
            else GridLayout(cols=2, size_hint_y=None, height=TOUCH * 2 + dp(6), spacing=dp(6))
        )
        for spec, text in CAMERA_CHOICES:
            row.add_widget(
                Btn(
                    _(text),
                    lambda s=spec: self.set_camera(s),
                    name=f"camera-{spec}",
                    role="selected" if current == spec else "normal",
                )
            )
        body.add_widget(row)
        if self.app.camera_override:
            body.add_widget(
                AutoLbl(
                    _("This run uses --camera {camera}.").format(camera=self.app.camera_override),
                    "s",
                    color=WARN,
                )
            )
        test = hbox(size_hint_y=None, height=TOUCH)
        test.add_widget(Btn(_("Test camera"), self.test, name="camera-test", size_hint_x=None, width=dp(180)))
        test.add_widget(
            Btn(
                _("Camera placement"),
                lambda: self.app.screens["camera_check"].open_from("settings"),
                name="camera-check",
                size_hint_x=None,
                width=max(dp(180), font("m") * 9),  # "Camera placement" and its translations
            )
        )
        test.add_widget(Lbl(short(self.test_message, 140), "s"))
        body.add_widget(test)
        self.sharing_rows(body)
        deck_rows(self, body)
        store = self.kiosk.store
        size = store.path.stat().st_size if store.path.exists() else 0
        photos = len(list(store.photos_dir.glob("*.jpg")))
        n_games = len(store.games())
        info = "\n".join(
            (
                _("Record: {path}").format(path=store.path),
                ", ".join(
                    (
                        _("{size} KB").format(size=num(size // 1024)),
                        ngettext("{n} game", "{n} games", n_games).format(n=num(n_games)),
                        ngettext("{n} scan photo in {folder}", "{n} scan photos in {folder}", photos).format(
                            n=num(photos), folder=store.photos_dir
                        ),
                    )
                ),
                _("Set TABLETALLY_DATA_DIR or --data-dir to keep it elsewhere."),
            )
        )
        body.add_widget(AutoLbl(_("Data"), "m", bold=True, color=MUTED))
        body.add_widget(AutoLbl(info, "s"))
        root.add_widget(scroller(body))

    def sharing_rows(self, body: Any) -> None:
        """The phones' scoreboard: the switch, then the address, its QR code and port (or what is wrong)."""
        sharing = self.app.sharing
        view = sharing.view()
        body.add_widget(AutoLbl(_("Scores on phones"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        row.add_widget(
            Btn(
                _("Off"),
                lambda: self.share(False),
                name="share-off",
                role="normal" if view.on else "selected",
            )
        )
        row.add_widget(
            Btn(_("On"), lambda: self.share(True), name="share-on", role="selected" if view.on else "normal")
        )
        body.add_widget(row)
        if view.error:
            body.add_widget(AutoLbl(view.error, "s", color=WARN))
        if not view.on:
            body.add_widget(
                AutoLbl(_("Players on the home network can follow tonight's scores on their phones."), "s")
            )
            return
        text = [
            _("Open on a phone on this network:"),
            view.url or "-",
            _("Port {port}").format(port=view.port),
        ]
        text += list(view.other_urls)
        if view.qr is not None:
            line = hbox(size_hint_y=None, height=dp(190), spacing=dp(12))
            image = Image(texture=qr_texture(view.qr), size_hint=(None, None), size=(dp(190), dp(190)))
            image.name = "share-qr"
            line.add_widget(image)
            line.add_widget(AutoLbl("\n".join(text), "m"))
            body.add_widget(line)
        else:
            body.add_widget(AutoLbl("\n".join(text), "m"))
        if view.warning:
            body.add_widget(AutoLbl(view.warning, "s", color=WARN))

    def share(self, on: bool) -> None:
        self.app.sharing.switch(on)
        self.refresh()

    def language_rows(self, body: Any) -> None:
        """The interface language (each in its own script) and the digits every number is shown in."""
        body.add_widget(AutoLbl(_("Language"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        for code, name in LANGUAGES.items():
            row.add_widget(
                Btn(
                    name,
                    lambda c=code: self.app.set_language(c),
                    name=f"language-{code}",
                    role="selected" if language() == code else "normal",
                )
            )
        body.add_widget(row)
        body.add_widget(AutoLbl(_("Digits"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        for style, sample in ((WESTERN, "0 1 2 3"), (DEVANAGARI, "\u0966 \u0967 \u0968 \u0969")):
            row.add_widget(
                Btn(
                    sample,
                    lambda s=style: self.app.set_digits(s),
                    name=f"digits-{style}",
                    role="selected" if digits() == style else "normal",
                )
            )
        body.add_widget(row)

    def set_camera(self, spec: str) -> None:
        self.kiosk.set_camera(spec)
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.refresh()

    def test(self) -> None:
        def done(result: ScanResult) -> None:
            if result.camera_failed:
                self.test_message = result.error or _("no photo")
            else:
                self.test_message = _("OK: {width}x{height} photo from {camera}").format(
                    width=num(result.width), height=num(result.height), camera=result.camera
                )
            self.refresh()

        self.test_message = _("Taking a photo...")
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.scanner.scan("test", done, 1, None)
        self.refresh()
