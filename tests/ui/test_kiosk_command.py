"""`tabletally kiosk`: bad options get a clear message and exit status, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from ui.cli import main
from ui.commands.kiosk import window_size


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "10x10"], "--size '10x10': at least 320x240"),
        (["--size", "huge"], "use landscape, portrait or WIDTHxHEIGHT"),
        (["--camera", "bogus"], "unknown camera 'bogus'"),
        (["--model", "/no/such/model.onnx"], "model /no/such/model.onnx does not exist"),
    ],
)
def test_bad_kiosk_options_are_refused_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["kiosk", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_unusable_data_dir_shows_the_fault_screen_instead_of_exiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fault screen is the whole app until the players close it (under systemd an exit would be a
    # restart loop behind a black screen); here its run() only records what it was given. (Imported here:
    # Kivy at collection time makes torch's later import crash in the models tests.)
    from ui.screens.fault import FaultApp

    shown: list[FaultApp] = []
    monkeypatch.setattr(FaultApp, "run", lambda self: shown.append(self))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["kiosk", "--data-dir", str(blocker / "data")]) == 1
    assert len(shown) == 1 and "cannot create the data directory" in str(shown[0].flow.exc)


def test_window_sizes_for_both_supported_screens() -> None:
    assert window_size("landscape") == (800, 480)
    assert window_size("portrait") == (720, 1280)
    assert window_size("1024x600") == (1024, 600)
