"""The kiosk's side of sharing: the Settings switch (kept in the record), ``kiosk --share``, and what the
Settings screen says (the address, the port, the QR code, or plainly what is wrong). Plain Python, no Kivy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ui import i18n
from ui.i18n import _
from ui.logic.kiosk import Kiosk
from ui.share import DEFAULT_PORT, EVERY_ADDRESS, ShareError

if TYPE_CHECKING:  # the server (Starlette, uvicorn) is imported when sharing is first switched on
    from ui.share.server import ShareServer

SETTING = "share"  # "on" / "off" in the record's settings
PORT_SETTING = "share_port"
ENV_PORT = "TABLETALLY_SHARE_PORT"
ENV_ALLOWED = "TABLETALLY_SHARE_ALLOWED"  # set by the drop-in deploy/tabletally-share.conf
ENV_ADDRESS = "TABLETALLY_SHARE_ADDRESS"  # the name or address phones should use, when not the detected one
SERVICE_DROP_IN = Path("/etc/systemd/system/tabletally-kiosk.service.d/tabletally-share.conf")
"""Installed by ``sudo deploy/share.sh on``: lets the kiosk's service reach the home network (the doctor
looks for it)."""


@dataclass(frozen=True)
class ShareView:
    """What the Settings screen shows about sharing."""

    on: bool
    port: int
    url: str | None  # the address to show and put in the QR code
    other_urls: tuple[str, ...]
    qr: bytes | None  # PNG
    error: str  # why sharing is not running (port in use ...), empty when fine
    warning: str  # running, but phones may not get through (no network, the service's firewall)


class Sharing:
    def __init__(
        self,
        kiosk: Kiosk,
        port: int | None = None,
        host: str = EVERY_ADDRESS,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.kiosk = kiosk
        self.port_override = port
        self.host = host
        self.environ = os.environ if environ is None else environ
        self.server: ShareServer | None = None
        self.error = ""
        self._qr: tuple[str, bytes] | None = None

    @property
    def enabled(self) -> bool:
        """The Settings switch as kept in the record (off unless someone switched it on)."""
        return self.kiosk.store.setting(SETTING, "off") == "on"

    @property
    def port(self) -> int:
        """--share-port, else $TABLETALLY_SHARE_PORT (the local.env of the service), else the record's."""
        if self.port_override is not None:
            return self.port_override
        for text in (self.environ.get(ENV_PORT), self.kiosk.store.setting(PORT_SETTING)):
            if text and text.isdigit() and 0 < int(text) < 65536:
                return int(text)
        return DEFAULT_PORT

    @property
    def running(self) -> bool:
        return self.server is not None and self.server.running

    def start_at_launch(self, forced: bool = False) -> None:
        """At kiosk start: share when ``kiosk --share`` asked for it or the switch was left on."""
        if forced or self.enabled:
            self.turn_on()

    def switch(self, on: bool) -> None:
        """The Settings switch: remembered in the record, then applied."""
        self.kiosk.store.set_setting(SETTING, "on" if on else "off")
        if on:
            self.turn_on()
        else:
            self.turn_off()

    def turn_on(self) -> None:
        if self.running:
            return  # on twice: nothing more
        from ui.share.server import ShareServer

        open_game = self._open_game
        server = ShareServer(self.kiosk.store, open_game, port=self.port, host=self.host)
        try:
            server.start()
        except ShareError as exc:
            self.error = str(exc)
            return
        self.error = ""
        self.server = server
        self.kiosk.listeners.append(server.notify)
        i18n.on_change(server.notify)  # the phones' words and digits follow the kiosk's Settings

    def turn_off(self) -> None:
        server, self.server = self.server, None
        self.error = ""
        if server is None:
            return
        if server.notify in self.kiosk.listeners:
            self.kiosk.listeners.remove(server.notify)
        i18n.remove_listener(server.notify)
        server.stop()

    def _open_game(self) -> int | None:
        game = self.kiosk.game
        return game.id if game is not None else None

    def firewall_missing(self) -> bool:
        """Running as the installed service (systemd sets INVOCATION_ID), whose unit allows no network
        traffic but loopback, without the drop-in that opens it to the home network (which sets
        TABLETALLY_SHARE_ALLOWED, so this is what the running service has, not what is on disk)."""
        return bool(self.environ.get("INVOCATION_ID")) and self.environ.get(ENV_ALLOWED) != "1"

    def view(self) -> ShareView:
        server = self.server if self.running else None
        if server is None:
            return ShareView(False, self.port, None, (), None, self.error, "")
        info = server.info()
        urls = info.urls
        chosen = self.environ.get(ENV_ADDRESS, "").strip()
        if chosen:
            from ui.share.net import page_url

            urls = (page_url(chosen, info.port), *urls)
        url = urls[0] if urls else None
        warning = ""
        if url is None:
            warning = _("This kiosk is on no home network (Wi-Fi or cable), so phones cannot reach it yet.")
        elif self.firewall_missing():
            warning = _(
                "Phones cannot get through yet: the kiosk's service allows no network traffic. "
                "On the Pi, in the TableTally folder, run: sudo deploy/share.sh on"
            )
        qr = None
        if url is not None:
            if self._qr is None or self._qr[0] != url:
                from ui.share.qr import qr_png

                self._qr = (url, qr_png(url))
            qr = self._qr[1]
        return ShareView(True, info.port, url, urls[1:], qr, "", warning)
