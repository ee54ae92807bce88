"""The kiosk's switch: off by default, kept in the record, on twice does nothing, and plain words when it
cannot work (port in use, no network, the service's firewall)."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.share.conftest import ROUND1, play
from tests.share.helpers import Stream, request
from ui import i18n
from ui.commands import kiosk as kiosk_command
from ui.logic.kiosk import Kiosk
from ui.share import DEFAULT_PORT
from ui.share.qr import qr_png
from ui.share.sharing import SETTING, Sharing


def sharing(kiosk: Kiosk, tmp_path: Path, **environ: str) -> Sharing:
    return Sharing(kiosk, port=0, host="127.0.0.1", environ=environ)


def test_off_by_default_and_the_switch_is_kept_in_the_record(kiosk: Kiosk, tmp_path: Path) -> None:
    s = sharing(kiosk, tmp_path)
    s.start_at_launch()
    assert not s.running and not s.enabled and not s.view().on
    s.switch(True)
    assert s.running and kiosk.store.setting(SETTING) == "on"
    s.turn_off()  # the kiosk stops; the switch stays on in the record
    again = sharing(kiosk, tmp_path)
    again.start_at_launch()
    assert again.running
    again.switch(False)
    assert not again.running and kiosk.store.setting(SETTING) == "off"


def test_kiosk_share_turns_it_on_for_the_run_without_touching_the_switch(
    kiosk: Kiosk, tmp_path: Path
) -> None:
    s = sharing(kiosk, tmp_path)
    s.start_at_launch(forced=True)
    try:
        assert s.running and not s.enabled
    finally:
        s.turn_off()


def test_on_twice_does_nothing_and_confirmed_rounds_reach_the_phones(kiosk: Kiosk, tmp_path: Path) -> None:
    s = sharing(kiosk, tmp_path)
    s.switch(True)
    server = s.server
    assert server is not None
    s.switch(True)
    assert s.server is server and kiosk.listeners.count(server.notify) == 1
    phone = Stream(server.port)
    try:
        phone.next_snapshot()
        play(kiosk, "Asha", ROUND1)
        data, _ = phone.next_snapshot()
        assert data["game"]["entries"] == 1
    finally:
        phone.close()
        s.switch(False)
    assert kiosk.listeners == []
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=2)


@pytest.mark.usefixtures("locale")
def test_a_change_of_digits_or_language_on_the_kiosk_reaches_the_phones(kiosk: Kiosk, tmp_path: Path) -> None:
    s = sharing(kiosk, tmp_path)
    s.switch(True)
    assert s.server is not None
    server = s.server
    phone = Stream(server.port)
    try:
        data, _ = phone.next_snapshot()
        assert data["digits"] == "0123456789"
        kiosk.set_digits(i18n.DEVANAGARI)  # Settings: nothing is scored, yet the phones must write ०-९
        data, _ = phone.next_snapshot()
        assert data["digits"] == "०१२३४५६७८९" and data["language"] == "en"
        kiosk.set_language("hi")  # the page reloads to speak it (tests/share/test_browser.py)
        data, _ = phone.next_snapshot()
        assert data["language"] == "hi"
    finally:
        phone.close()
        s.switch(False)
    i18n.set_digits(i18n.WESTERN)  # sharing is off: no one is told any more
    assert server.notify not in i18n._listeners


def test_a_port_in_use_is_said_plainly_and_nothing_runs(kiosk: Kiosk, tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        s = Sharing(kiosk, port=port, host="127.0.0.1", environ={})
        s.switch(True)
        view = s.view()
        assert not s.running and not view.on
        assert f"Port {port} is already used by another program" in view.error
        assert f"--share-port {port + 1}" in view.error
    finally:
        taken.close()
    s.switch(True)  # the port is free again: the same switch now works
    assert s.running and s.view().error == ""
    s.turn_off()


def test_the_port_comes_from_the_command_the_environment_the_record_or_8088(
    kiosk: Kiosk, tmp_path: Path
) -> None:
    assert Sharing(kiosk, environ={}).port == DEFAULT_PORT == 8088
    kiosk.store.set_setting("share_port", "8100")
    assert Sharing(kiosk, environ={}).port == 8100
    assert Sharing(kiosk, environ={"TABLETALLY_SHARE_PORT": "8200"}).port == 8200
    assert Sharing(kiosk, port=8300, environ={"TABLETALLY_SHARE_PORT": "8200"}).port == 8300


def test_the_qr_code_reads_back_as_the_address(kiosk: Kiosk, tmp_path: Path) -> None:
    s = sharing(kiosk, tmp_path, TABLETALLY_SHARE_ADDRESS="192.168.1.40")
    s.switch(True)
    try:
        view = s.view()
        assert view.url == f"http://192.168.1.40:{view.port}/"
        assert view.qr is not None and view.qr.startswith(b"\x89PNG")
        image = cv2.imdecode(np.frombuffer(view.qr, np.uint8), cv2.IMREAD_GRAYSCALE)
        text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
        assert text == view.url
    finally:
        s.turn_off()
    assert qr_png("http://10.0.0.2:8088/") != qr_png("http://10.0.0.3:8088/")


def test_the_switch_says_what_to_run_when_the_service_firewall_is_closed(kiosk: Kiosk) -> None:
    environ = {"INVOCATION_ID": "abc", "TABLETALLY_SHARE_ADDRESS": "192.168.1.40"}  # the installed service
    s = Sharing(kiosk, port=0, host="127.0.0.1", environ=environ)
    s.switch(True)
    try:
        assert "sudo deploy/share.sh on" in s.view().warning
        environ["TABLETALLY_SHARE_ALLOWED"] = "1"  # what the drop-in sets, once installed and restarted
        assert s.view().warning == ""
        assert request(s.view().port, path="/")[0] == 200
    finally:
        s.turn_off()
    assert not Sharing(kiosk, environ={}).firewall_missing()  # not under systemd: nothing to say


def test_on_no_home_network_the_switch_says_so(
    kiosk: Kiosk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ui.share.server.lan_addresses", lambda: [])
    s = sharing(kiosk, tmp_path)
    s.switch(True)
    try:
        view = s.view()
        assert view.on and view.url is None and view.qr is None
        assert "no home network" in view.warning
    finally:
        s.turn_off()


def test_kiosk_command_takes_share_and_a_port() -> None:
    parser = argparse.ArgumentParser()
    kiosk_command.add_arguments(parser)
    args = parser.parse_args(["--share", "--share-port", "8090"])
    assert args.share and args.share_port == 8090
    assert not parser.parse_args([]).share
    with pytest.raises(SystemExit):
        parser.parse_args(["--share-port", "70000"])
