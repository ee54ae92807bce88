"""Settings: language and digits, the camera, the phones' scoreboard, the deck, the record in players'
words, and one page for the technician (paths, the camera's spec, the runtime, the doctor's lines)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from kivy.metrics import dp
from kivy.uix.gridlayout import GridLayout
from kivy.uix.image import Image
from kivy.uix.widget import Widget

from ui.design import GAP, GAP_L, GAP_S, MUTED, TOUCH, WARN, font, landscape
from ui.i18n import DEVANAGARI, LANGUAGES, N_, WESTERN, _, digits, language, ngettext, num
from ui.logic.camera_check import last_check_line
from ui.logic.scan import ScanResult
from ui.screens.base import Base
from ui.screens.deck import deck_rows
from ui.widgets.basic import AutoLbl, Btn, Sheet, hbox, scroller, vbox
from ui.widgets.live_view import watch_rows

if TYPE_CHECKING:
    from ui.app import TableTallyApp

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
    test_detail = ""  # the last camera test in a technician's words (the technician's page shows it)

    def build(self, root: Any) -> None:
        root.add_widget(self.top_bar(_("Settings"), back=(_("Home"), self.app.go_home)))
        first = vbox(size_hint_y=None)
        second = vbox(size_hint_y=None)
        if landscape():  # the languages and digits in one row above the columns
            root.add_widget(self.language_strip())
        else:
            self.language_rows(first)
        self.camera_rows(first)
        watch_rows(self, first)  # the live view's automatic scan: on or off
        self.sharing_rows(second if landscape() else first)
        deck_rows(self, second if landscape() else first)
        self.record_rows(second if landscape() else first)
        if landscape():  # two columns: every button on screen at 800x480
            body = hbox(spacing=dp(GAP_L))
            body.add_widget(scroller(first))
            body.add_widget(scroller(second))
            root.add_widget(body)
        else:
            root.add_widget(scroller(first))

    def camera_rows(self, body: Any) -> None:
        """Where the photos come from, a test photo, and the camera's placement."""
        current = self.app.camera_spec()
        body.add_widget(AutoLbl(_("Camera"), "m", bold=True, color=MUTED))
        row = GridLayout(cols=2, size_hint_y=None, height=TOUCH * 2 + dp(GAP), spacing=dp(GAP))
        for spec, text in CAMERA_CHOICES:
            row.add_widget(
                Btn(
                    _(text),
                    lambda s=spec: self.set_camera(s),
                    name=f"camera-{spec}",
                    role="selected" if current == spec else "normal",
                    font_size=font("s"),
                )
            )
        body.add_widget(row)
        if self.app.camera_override:
            body.add_widget(
                AutoLbl(_("This run chose its own camera; the choice above applies next time."), "s")
            )
        test = hbox(size_hint_y=None, height=TOUCH)
        test.add_widget(Btn(_("Test camera"), self.test, name="camera-test", font_size=font("s")))
        test.add_widget(
            Btn(
                _("Camera placement"),
                lambda: self.app.screens["camera_check"].open_from("settings"),
                name="camera-check",
                font_size=font("s"),
            )
        )
        body.add_widget(test)
        if self.test_message:
            body.add_widget(AutoLbl(self.test_message, "s"))

    def record_rows(self, body: Any) -> None:
        """What the record keeps, in players' words, and the technician's page."""
        store = self.kiosk.store
        photos = len(list(store.photos_dir.glob("*.jpg")))
        n_games = len(store.games())
        body.add_widget(AutoLbl(_("Record"), "m", bold=True, color=MUTED))
        kept = ngettext("{n} game kept", "{n} games kept", n_games).format(n=num(n_games))
        shots = ngettext("{n} scan photo", "{n} scan photos", photos).format(n=num(photos))
        body.add_widget(AutoLbl(f"{kept}, {shots}", "s"))
        body.add_widget(
            Btn(
                _("For the technician"), self.technician, role="quiet", name="technician", font_size=font("s")
            )
        )

    def technician(self) -> None:
        """One page of the details a technician needs: the camera, the folders, the runtime, the doctor."""
        sheet = Sheet(_("For the technician"))
        sheet.screen_name = "technician"  # the one page technician's words may be on (the demo checks)
        lines = vbox(size_hint_y=None, spacing=dp(GAP_S))
        for head, text in technician_lines(self.app, self.test_detail):
            lines.add_widget(AutoLbl(head, "s", bold=True, color=MUTED))
            lines.add_widget(AutoLbl(text, "xs"))
        sheet.body.add_widget(scroller(lines))
        sheet.body.add_widget(Btn(_("Back"), sheet.dismiss, role="primary", name="technician-back"))
        self.app.open_sheet(sheet)

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

    def language_buttons(self, row: Any) -> None:
        """One button per interface language, each named in its own script, added to ``row``."""
        for code, name in LANGUAGES.items():
            row.add_widget(
                Btn(
                    name,
                    lambda c=code: self.app.set_language(c),
                    name=f"language-{code}",
                    role="selected" if language() == code else "normal",
                )
            )

    def digit_buttons(self, row: Any) -> None:
        """One button per kind of digits, each showing a sample, added to ``row``."""
        for style, sample in ((WESTERN, "0 1 2 3"), (DEVANAGARI, "\u0966 \u0967 \u0968 \u0969")):
            row.add_widget(
                Btn(
                    sample,
                    lambda s=style: self.app.set_digits(s),
                    name=f"digits-{style}",
                    role="selected" if digits() == style else "normal",
                )
            )

    def language_strip(self) -> Any:
        """The three languages, each in its own script, and the two kinds of digits, in one row."""
        row = hbox(size_hint_y=None, height=TOUCH)
        self.language_buttons(row)
        row.add_widget(Widget(size_hint_x=0.15))
        self.digit_buttons(row)
        return row

    def language_rows(self, body: Any) -> None:
        """The interface language (each in its own script) and the digits every number is shown in."""
        body.add_widget(AutoLbl(_("Language"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        self.language_buttons(row)
        body.add_widget(row)
        body.add_widget(AutoLbl(_("Digits"), "m", bold=True, color=MUTED))
        row = hbox(size_hint_y=None, height=TOUCH)
        self.digit_buttons(row)
        body.add_widget(row)

    def set_camera(self, spec: str) -> None:
        self.kiosk.set_camera(spec)
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.refresh()

    def test(self) -> None:
        def done(result: ScanResult) -> None:
            if result.camera_failed:
                self.test_message = _("The camera gave no photo. Is it connected?")
                self.test_detail = result.error or "no photo"
            else:
                self.test_message = _("The camera works: it took a photo.")
                self.test_detail = f"{result.width}x{result.height} photo from {result.camera}"
            self.refresh()

        self.test_message = _("Taking a photo...")
        self.app.scanner.camera_spec = self.app.camera_spec()
        self.app.scanner.scan("test", done, 1, None)
        self.refresh()


def technician_lines(app: TableTallyApp, camera_test: str = "") -> list[tuple[str, str]]:
    """The technician's page: (heading, text) pairs. The values stay as the system gives them (paths,
    camera specs, the runtime's name); the headings are translated."""
    import os

    from ui.commands.doctor import format_report
    from ui.commands.doctor.database import check_database
    from ui.commands.doctor.disk import check_disk
    from vision.runtimes.choice import runtime_from_env

    store = app.kiosk.store
    size = store.path.stat().st_size if store.path.exists() else 0
    camera = app.camera_spec()
    if app.camera_override:
        camera += f"  (--camera {app.camera_override})"
    if camera_test:
        camera += "\n" + camera_test
    if checked := last_check_line(store):
        camera += "\n" + checked
    data_env = os.environ.get("TABLETALLY_DATA_DIR")
    record = f"{store.path} ({size // 1024} KB)\n" + (
        f"TABLETALLY_DATA_DIR={data_env}" if data_env else "--data-dir or TABLETALLY_DATA_DIR move it"
    )
    try:
        doctor = format_report([check_database(store.data_dir), check_disk(store.data_dir)])
    except Exception as exc:  # noqa: BLE001 - the page shows what failed instead of the lines
        doctor = f"{type(exc).__name__}: {exc}"
    model = str(app.model_path) if app.model_path else "models/cards.onnx (default)"
    return [
        (_("Camera"), camera),
        (_("Record"), record),
        (_("Scan photos"), str(store.photos_dir)),
        (_("Card reading"), f"runtime {runtime_from_env()}, {model}"),
        (_("The doctor (tabletally doctor)"), doctor.strip()),
    ]
