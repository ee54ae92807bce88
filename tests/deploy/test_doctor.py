"""`tabletally doctor` against a fake machine: temporary folders for sysfs and /dev, a fake model loader,
cameras that are missing, a disk that is full, databases that are damaged or read-only."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from ui.cli import main as cli_main
from ui.commands import doctor
from ui.commands.doctor import (
    Check,
    CheckName,
    Probes,
    ReferencePhoto,
    Status,
    bundled_test_photos,
    check_camera,
    check_database,
    check_disk,
    check_display,
    check_model,
    kiosk_environment,
)

GB = 1024**3


@dataclass(frozen=True)
class Cam:
    kind: str
    name: str
    available: bool
    reason: str


PI_CAM = Cam("pi", "Pi camera 0 (imx708_wide)", True, "found by libcamera")
NO_PI_CAM = Cam("pi", "Pi camera", False, "no camera connected to the camera port")
NO_WEBCAM = Cam("webcam", "webcam", False, "no video capture device (/dev/video*)")
DEMO = Cam("folder", "demo photos (3)", True, "bundled")


class FakeReader:
    """Stands in for the model: reads the given card codes from any picture."""

    imgsz = 640

    def __init__(
        self,
        codes: tuple[str, ...] = ("7H", "7D", "9D"),
        fail: Exception | None = None,
        doubted: tuple[str, ...] = (),
    ) -> None:
        self.codes, self.fail, self.calls, self.doubted = codes, fail, 0, list(doubted)

    def read(self, image: Any) -> list[str]:
        self.calls += 1
        if self.fail:
            raise self.fail
        return list(self.codes)


def ticking_clock(step_s: float):
    now = [0.0]

    def clock() -> float:
        now[0] += step_s  # each reading is one step later: every timed detect takes step_s
        return now[0]

    return clock


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "cards.onnx"
    path.write_bytes(b"\x08\x07" * 1000)
    return path


# --- camera ---


def test_camera_found_by_libcamera_is_ok() -> None:
    check = check_camera(lambda: [PI_CAM, NO_WEBCAM, DEMO])
    assert (check.status, check.summary) == (Status.OK, "Pi camera 0 (imx708_wide): found by libcamera")


def test_missing_camera_is_a_problem_that_names_every_reason_and_the_ribbon() -> None:
    check = check_camera(lambda: [NO_PI_CAM, NO_WEBCAM, DEMO])
    assert check.status is Status.FAIL
    assert "no camera connected to the camera port" in check.summary and "/dev/video" in check.summary
    assert "ribbon" in check.fix and "rpicam-hello --list-cameras" in check.fix


def test_demo_photos_do_not_count_as_a_camera() -> None:
    assert check_camera(lambda: [DEMO]).status is Status.FAIL


def test_webcam_alone_is_enough() -> None:
    check = check_camera(lambda: [NO_PI_CAM, Cam("webcam", "webcam 0 (C920)", True, "delivers pictures")])
    assert check.status is Status.OK and "webcam 0 (C920)" in check.summary


def test_missing_picamera2_says_how_to_install_it() -> None:
    gone = Cam("pi", "Pi camera", False, "the Pi camera needs picamera2, which is not installed")
    check = check_camera(lambda: [gone])
    assert check.status is Status.FAIL and "sudo apt install python3-picamera2" in check.fix


def test_camera_busy_while_the_kiosk_runs_is_only_a_warning() -> None:
    check = check_camera(lambda: [NO_PI_CAM], kiosk_running=True)
    assert check.status is Status.WARN and "systemctl stop tabletally-kiosk" in check.fix


def test_camera_probe_that_crashes_is_reported_not_raised() -> None:
    def boom() -> list[Cam]:
        raise RuntimeError("libcamera: pipeline handler crashed")

    check = check_camera(boom)
    assert check.status is Status.FAIL and "pipeline handler crashed" in check.summary


# --- model ---


def _model_check(model: Path, reader: FakeReader | None = None, photos=(), **kwargs: Any) -> Check:
    fake = reader or FakeReader()
    return check_model(
        model,
        load=lambda path: fake,
        photos=list(photos),
        read_image=lambda path: f"image of {path.name}",
        blank_image=lambda: "blank",
        **kwargs,
    )


HAND = ReferencePhoto(Path("doctor-photo.jpg"), ("7H", "7D", "9D"))


def test_missing_model_file_is_a_problem(tmp_path: Path) -> None:
    check = _model_check(tmp_path / "cards.onnx")
    assert check.status is Status.FAIL and "is missing" in check.summary and "deploy/update.sh" in check.fix


def test_empty_model_file_is_a_problem(tmp_path: Path) -> None:
    empty = tmp_path / "cards.onnx"
    empty.write_bytes(b"")
    assert _model_check(empty).status is Status.FAIL


def test_model_that_does_not_load_reports_the_loaders_words(model: Path) -> None:
    def load(path: Path) -> FakeReader:
        raise ValueError(f"model file {path} is not a valid ONNX model: protobuf parsing failed")

    check = check_model(model, load, [], lambda p: None, lambda: "blank")
    assert check.status is Status.FAIL and "protobuf parsing failed" in check.summary


def test_model_reads_the_test_photos_cards_and_reports_the_median_time(model: Path) -> None:
    reader = FakeReader(("9D", "7H", "7D"))
    check = _model_check(model, reader, [HAND], clock=ticking_clock(0.180), runs=3)
    assert check.status is Status.OK
    assert check.summary == "loads and read the test photo's cards (7H, 7D, 9D): 180 ms per photo at 640 px"
    assert check.details["ms_per_photo"] == pytest.approx(180.0)
    assert reader.calls == 4  # one warm-up, three timed


def test_model_check_says_the_turns_and_that_the_corners_are_re_read(model: Path) -> None:
    reader = FakeReader(("9D", "7H", "7D"))
    reader.rotations, reader.reader = 2, "/opt/tabletally/models/reader.onnx"  # type: ignore[attr-defined]
    check = _model_check(model, reader, [HAND], clock=ticking_clock(0.25), runs=1)
    assert check.summary.endswith("250 ms per photo at 640 px, 2 turns a view, corners re-read")
    assert check.details["corner_reader"] == "/opt/tabletally/models/reader.onnx"


def test_model_that_misses_or_invents_a_card_is_a_warning_naming_them(model: Path) -> None:
    check = _model_check(model, FakeReader(("7H", "9D", "9D")), [HAND], clock=ticking_clock(0.1))
    assert check.status is Status.WARN
    assert "missed 7D; also read 9D" in check.summary


def test_a_misread_the_kiosk_marks_for_the_players_to_check_is_not_a_warning(model: Path) -> None:
    # 9D read as a second 7H, marked uncertain: the kiosk shows it in orange before scoring.
    reader = FakeReader(("7H", "7H", "7D"), doubted=("7H",))
    check = _model_check(model, reader, [HAND], clock=ticking_clock(0.1))
    assert check.status is Status.OK
    assert "but one it marks for the players to check (read 7H; missed 9D)" in check.summary
    assert check.details["marked_for_checking"] == ["7H"]
    # A misread that is not marked, or a card missed besides, is still a warning.
    assert _model_check(model, FakeReader(("7H", "7H", "7D")), [HAND]).status is Status.WARN
    unmarked = FakeReader(("7H", "7H", "7D", "KS"), doubted=("7H",))
    assert _model_check(model, unmarked, [HAND]).status is Status.WARN
    assert _model_check(model, FakeReader(("7H", "7D"), doubted=("7H",)), [HAND]).status is Status.WARN
    slow = _model_check(model, reader, [HAND], clock=ticking_clock(3.0))  # and speed is still checked
    assert slow.status is Status.WARN and "slow" in slow.summary


def test_model_that_reads_none_of_the_test_cards_is_a_problem(model: Path) -> None:
    check = _model_check(model, FakeReader(("KS",)), [HAND], clock=ticking_clock(0.1))
    assert (
        check.status is Status.FAIL
        and "reads none of the cards" in check.summary
        and "it read: KS" in check.summary
    )


def test_model_that_finds_nothing_in_a_photo_without_known_cards_is_suspicious(model: Path) -> None:
    check = _model_check(model, FakeReader(()), [ReferencePhoto(Path("demo.jpg"))], clock=ticking_clock(0.1))
    assert check.status is Status.WARN and "found no cards" in check.summary


def test_unreadable_test_photo_falls_back_to_the_next(model: Path) -> None:
    def read_image(path: Path) -> str:
        if path.name == "broken.jpg":
            raise OSError("truncated file")
        return "ok"

    reader = FakeReader()
    check = check_model(
        model,
        lambda p: reader,
        [ReferencePhoto(Path("broken.jpg"), ("AS",)), HAND],
        read_image,
        lambda: "blank",
        clock=ticking_clock(0.1),
    )
    assert check.status is Status.OK and check.details["test_photo"] == "doctor-photo.jpg"


def test_model_without_test_photos_is_timed_on_a_blank_picture(model: Path) -> None:
    check = _model_check(model, FakeReader(()), [], clock=ticking_clock(0.05))
    assert check.status is Status.OK and "ran on a blank picture" in check.summary


def test_slow_model_is_a_warning_about_heat(model: Path) -> None:
    check = _model_check(model, clock=ticking_clock(3.5))
    assert (
        check.status is Status.WARN and "3500 ms" in check.summary and "vcgencmd get_throttled" in check.fix
    )


def test_model_that_fails_on_a_picture_is_a_problem(model: Path) -> None:
    check = _model_check(model, FakeReader(fail=ValueError("output shape (1, 61, 8400) does not match")))
    assert check.status is Status.FAIL and "(1, 61, 8400)" in check.summary


def test_the_bundled_test_photo_and_its_cards_are_installed() -> None:
    photos = bundled_test_photos()
    assert len(photos) == 1 and photos[0].path.name == "doctor-photo.jpg"
    assert photos[0].cards == ("7H", "7D", "9D")
    from vision.base.photo import load_image

    assert load_image(photos[0].path).shape == (480, 640, 3)


def test_bundled_test_photo_list_that_is_damaged_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "p.jpg").write_bytes(b"x")
    (tmp_path / "p.json").write_text('{"cards": "7H"}')
    assert bundled_test_photos(tmp_path / "p.jpg") == []


# --- display ---


def _sysfs(tmp_path: Path, connectors: dict[str, tuple[str, str]], touch: bool = True) -> dict[str, Path]:
    drm, inputs, dev, x11 = tmp_path / "drm", tmp_path / "input", tmp_path / "dev", tmp_path / "x11"
    for folder in (drm, inputs, dev / "dri", dev / "input", x11):
        folder.mkdir(parents=True, exist_ok=True)
    if connectors:
        (dev / "dri" / "card1").write_text("")
    for name, (status, mode) in connectors.items():
        (drm / f"card1-{name}").mkdir()
        (drm / f"card1-{name}" / "status").write_text(status + "\n")
        (drm / f"card1-{name}" / "modes").write_text(mode + "\n" if mode else "")
    devices = [("event0", "vc4-hdmi-0", "0")]  # the HDMI CEC remote: no touch
    if touch:
        # Goodix GT911 (Touch Display 2): abs bits 0 1 47 53 54 57 -> 0x260800000000003
        devices.append(("event5", "generic ft5x06 (79)", "260800000000003"))
    for event, name, abs_bits in devices:
        folder = inputs / event / "device"
        (folder / "capabilities").mkdir(parents=True)
        (folder / "name").write_text(name + "\n")
        (folder / "capabilities" / "abs").write_text(abs_bits + "\n")
        (dev / "input" / event).write_text("")
    return {"drm_root": drm, "input_root": inputs, "dev_root": dev, "x11_dir": x11}


def test_kms_screen_with_touch_is_ok_and_reports_the_resolution(tmp_path: Path) -> None:
    roots = _sysfs(tmp_path, {"DSI-1": ("connected", "720x1280"), "HDMI-A-1": ("disconnected", "")})
    env = {"TABLETALLY_SESSION": "kms", "TABLETALLY_ROTATION": "90"}
    check = check_display(env, **roots, can_open=lambda p: True)
    assert check.status is Status.OK
    assert (
        check.summary
        == "screen DSI-1 720x1280 on the KMS/DRM driver, rotated 90 degrees; touch: generic ft5x06 (79)"
    )


def test_no_screen_connected_is_a_problem_about_the_cable(tmp_path: Path) -> None:
    roots = _sysfs(tmp_path, {"DSI-1": ("disconnected", ""), "HDMI-A-1": ("disconnected", "")})
    check = check_display({}, **roots, can_open=lambda p: True)
    assert check.status is Status.FAIL and check.summary == "no screen is connected" and "22-pin" in check.fix


def test_no_drm_driver_points_at_config_txt(tmp_path: Path) -> None:
    check = check_display({}, **_sysfs(tmp_path, {}))
    assert check.status is Status.FAIL and "dtoverlay=vc4-kms-v3d" in check.fix


def test_screen_without_touch_panel_is_a_warning(tmp_path: Path) -> None:
    roots = _sysfs(tmp_path, {"HDMI-A-1": ("connected", "1920x1080")}, touch=False)
    check = check_display({}, **roots, can_open=lambda p: True)
    assert check.status is Status.WARN and "no touch panel" in check.summary


def test_account_outside_the_video_group_is_told_how_to_join(tmp_path: Path) -> None:
    roots = _sysfs(tmp_path, {"DSI-1": ("connected", "800x480")})
    check = check_display({}, **roots, can_open=lambda p: False)
    assert check.status is Status.FAIL and "usermod -aG video,render,input" in check.fix


def test_desktop_session_without_a_running_desktop_is_a_problem(tmp_path: Path) -> None:
    roots = _sysfs(tmp_path, {"DSI-1": ("connected", "800x480")})
    env = {"TABLETALLY_SESSION": "desktop", "DISPLAY": ":0"}
    check = check_display(env, **roots)
    assert check.status is Status.FAIL and "do_boot_behaviour B4" in check.fix
    (roots["x11_dir"] / "X0").write_text("")
    assert check_display(env, **roots).status is Status.OK


def test_laptop_desktop_is_ok(tmp_path: Path) -> None:
    check = check_display({"WAYLAND_DISPLAY": "wayland-0"}, **_sysfs(tmp_path, {}))
    assert check.status is Status.OK and "WAYLAND_DISPLAY=wayland-0" in check.summary


# --- database ---


def _db(folder: Path, rows: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    from ui.store import Store

    Store(folder).close()  # a real TableTally record (the doctor refuses other programs' databases)
    path = folder / "tabletally.sqlite3"
    con = sqlite3.connect(path)
    con.executemany(
        "INSERT INTO games (kind, definition, created) VALUES (?, '{}', '2026-12-05T20:00:00')",
        [("seep",)] * rows,
    )
    con.commit()
    con.close()
    return path


def test_healthy_database_is_ok_and_counts_games(tmp_path: Path) -> None:
    _db(tmp_path / "data", rows=3)
    check = check_database(tmp_path / "data")
    assert (
        check.status is Status.OK and "intact and writable" in check.summary and check.details["games"] == 3
    )


def test_no_database_yet_is_fine_when_the_folder_is_writable(tmp_path: Path) -> None:
    check = check_database(tmp_path / "not-yet" / "data")
    assert check.status is Status.OK and "creates" in check.summary


def test_file_that_is_not_a_database_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "tabletally.sqlite3").write_bytes(b"this is a shopping list, not a database" * 50)
    check = check_database(tmp_path)
    # The rescue is TableTally's own (tabletally export reads past damaged pages), not the sqlite3 CLI's
    # .recover, which Debian 12's sqlite3 3.40.1 cannot run ("no such table: sqlite_dbpage").
    assert check.status is Status.FAIL and "tabletally export --data-dir" in check.fix
    assert ".recover" not in check.fix


def test_damaged_database_is_found_by_the_integrity_check(tmp_path: Path) -> None:
    """A table row changed behind its index's back: SQLite opens the file; only integrity_check sees it."""
    path = _db(tmp_path, rows=50)
    con = sqlite3.connect(path)
    con.execute("CREATE INDEX games_kind ON games(kind)")
    con.commit()
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    for start in range(page_size, len(data), page_size):  # page 1 holds the schema (its CHECK names 'seep')
        header = start + (100 if start == 0 else 0)
        at = data.find(b"seep", start, start + page_size)
        if data[header] == 0x0D and at >= 0:  # a table leaf page: change one row's value
            data[at : at + 4] = b"seeq"
            break
    else:
        pytest.fail("no table leaf page with a row found")
    path.write_bytes(bytes(data))
    check = check_database(tmp_path)
    assert check.status is Status.FAIL
    assert check.summary.startswith("the database is damaged (")
    assert "games_kind" in " ".join(check.details["errors"])


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write read-only files")
def test_read_only_database_is_a_problem_about_ownership(tmp_path: Path) -> None:
    path = _db(tmp_path)
    path.chmod(0o444)
    check = check_database(tmp_path)
    assert check.status is Status.FAIL and "chown" in check.fix


def test_busy_database_is_a_warning(tmp_path: Path) -> None:
    path = _db(tmp_path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        check = check_database(tmp_path)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert check.status is Status.WARN and "busy" in check.summary


def test_an_intact_record_on_a_full_disk_is_not_called_writable(tmp_path: Path) -> None:
    _db(tmp_path)
    check = check_database(tmp_path, _usage(0.05))
    assert check.status is Status.FAIL
    assert "cannot take new rounds: the disk is full (51 MB free)" in check.summary
    assert "writable" not in check.summary and "disk check" in check.fix
    assert check_database(tmp_path, _usage(20.0)).status is Status.OK  # the same record with room


def test_no_record_yet_on_a_full_disk_cannot_be_created(tmp_path: Path) -> None:
    check = check_database(tmp_path / "data", _usage(0.05))
    assert check.status is Status.FAIL and "cannot create the database" in check.summary
    assert "the disk is full" in check.summary and "chown" not in check.fix


def test_no_record_on_a_read_only_file_system_is_not_told_to_chown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card is mounted read-only (statvfs says ST_RDONLY) and no record exists yet: chown cannot help;
    the fix is the card, as the kiosk's own screen says ("The SD card is read-only")."""
    real_statvfs, real_access = os.statvfs, os.access

    class ReadOnly:
        def __init__(self, path: Any) -> None:
            self.real = real_statvfs(path)
            self.f_flag = self.real.f_flag | os.ST_RDONLY

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    monkeypatch.setattr(os, "statvfs", ReadOnly)
    monkeypatch.setattr(
        os, "access", lambda path, mode: not mode & os.W_OK and real_access(path, mode)
    )  # nothing on a read-only mount is writable, even for root
    check = check_database(tmp_path / "data")
    assert check.status is Status.FAIL
    assert (
        check.summary
        == f"cannot create the database: the file system holding {tmp_path} is mounted read-only"
    )
    assert "chown" not in check.fix and "replace the card" in check.fix


# --- disk ---


def _usage(free_gb: float, total_gb: float = 32.0):
    return lambda path: (int(total_gb * GB), int((total_gb - free_gb) * GB), int(free_gb * GB))


def test_full_disk_is_a_problem(tmp_path: Path) -> None:
    check = check_disk(tmp_path, _usage(0.05))
    assert (
        check.status is Status.FAIL
        and "the disk is full" in check.summary
        and "journalctl --vacuum" in check.fix
    )


def test_nearly_full_disk_is_a_warning(tmp_path: Path) -> None:
    assert check_disk(tmp_path, _usage(0.5)).status is Status.WARN


def test_roomy_disk_is_ok(tmp_path: Path) -> None:
    check = check_disk(tmp_path / "data" / "not-created", _usage(20.0))
    assert check.status is Status.OK and check.summary == f"20.0 GB free of 32.0 GB on {tmp_path}"


# --- the command ---


def _probes(
    tmp_path: Path, cameras: list[Cam], reader: FakeReader | None = None, free_gb: float = 20.0
) -> Probes:
    roots = _sysfs(tmp_path / "sys", {"DSI-1": ("connected", "800x480")})
    fake = reader or FakeReader()
    return Probes(
        list_cameras=lambda: cameras,
        load_detector=lambda path: fake,
        test_photos=lambda: [],
        read_image=lambda path: None,
        blank_image=lambda: "blank",
        kiosk_running=lambda: False,
        disk_usage=_usage(free_gb),
        **roots,
    )


def _args(tmp_path: Path, *extra: str) -> argparse.Namespace:
    from ui.cli import build_parser

    return build_parser().parse_args(
        ["doctor", "--env-file", str(tmp_path / "kiosk.env"), "--model", str(tmp_path / "cards.onnx"), *extra]
    )


def test_doctor_exits_1_and_says_what_is_wrong(tmp_path: Path, model: Path, capsys) -> None:
    (tmp_path / "kiosk.env").write_text(f"TABLETALLY_DATA_DIR={tmp_path / 'data'}\nTABLETALLY_SESSION=kms\n")
    probes = _probes(tmp_path, [NO_PI_CAM, NO_WEBCAM], free_gb=0.01)
    status = doctor.run(_args(tmp_path), probes=probes, environ={})
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("TableTally doctor\n")
    assert "PROBLEM  camera" in out and "PROBLEM  disk" in out and "ok       model" in out
    assert "PROBLEM  database" in out  # no room for the record it would create
    assert "3 problem(s)" in out


def test_doctor_exits_0_when_only_warnings(tmp_path: Path, model: Path, capsys) -> None:
    (tmp_path / "kiosk.env").write_text(f"TABLETALLY_DATA_DIR={tmp_path / 'data'}\n")
    status = doctor.run(_args(tmp_path), probes=_probes(tmp_path, [PI_CAM], free_gb=0.5), environ={})
    assert status == 0
    assert "No problems; 1 warning(s)" in capsys.readouterr().out


def test_doctor_json_lists_every_check(tmp_path: Path, model: Path, capsys) -> None:
    (tmp_path / "kiosk.env").write_text(f"TABLETALLY_DATA_DIR={tmp_path / 'data'}\n")
    _db(tmp_path / "data")
    status = doctor.run(_args(tmp_path, "--json"), probes=_probes(tmp_path, [PI_CAM]), environ={})
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["ok"] is True
    assert [c["name"] for c in report["checks"]] == ["camera", "model", "display", "database", "disk"]
    assert {c["status"] for c in report["checks"]} <= {"ok", "warning"}
    database = next(c for c in report["checks"] if c["name"] == "database")
    assert database["details"]["path"] == str(tmp_path / "data" / "tabletally.sqlite3")


def test_doctor_uses_the_installed_kiosks_data_dir_unless_told_otherwise(tmp_path: Path) -> None:
    (tmp_path / "kiosk.env").write_text(
        "TABLETALLY_DATA_DIR=/var/lib/tabletally/data\nSDL_VIDEODRIVER=kmsdrm\n"
    )
    (tmp_path / "local.env").write_text("# mine\nTABLETALLY_DATA_DIR='/srv/games'\n")
    env = kiosk_environment({}, tmp_path / "kiosk.env")
    assert env["TABLETALLY_DATA_DIR"] == "/srv/games" and env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert (
        kiosk_environment({"TABLETALLY_DATA_DIR": "/x"}, tmp_path / "kiosk.env")["TABLETALLY_DATA_DIR"]
        == "/x"
    )


def test_doctor_skip_leaves_checks_out(tmp_path: Path, model: Path, capsys) -> None:
    status = doctor.run(
        _args(tmp_path, "--json", "--skip", "camera", "--skip", "display"),
        probes=_probes(tmp_path, []),
        environ={"TABLETALLY_DATA_DIR": str(tmp_path / "d")},
    )
    assert status == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)["checks"]] == ["model", "database", "disk"]


def test_unknown_check_name_is_refused_by_the_command_line(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["doctor", "--skip", "printer"])
    assert exit_info.value.code == 2
    assert "unknown check 'printer'" in capsys.readouterr().err


def test_a_check_that_is_not_ok_must_say_how_to_fix_it() -> None:
    with pytest.raises(ValueError, match="disk"):
        Check(CheckName.DISK, Status.WARN, "nearly full")
    assert replace(Check(CheckName.DISK, Status.OK, "fine"), summary="still fine").status is Status.OK


def test_doctor_runs_for_real_on_this_machine(tmp_path: Path, capsys) -> None:
    """The real probes (vision's cameras and detector) run end to end and the report is complete."""
    status = cli_main(
        ["doctor", "--json", "--data-dir", str(tmp_path), "--env-file", str(tmp_path / "none.env")]
    )
    report = json.loads(capsys.readouterr().out)
    assert status == (0 if report["ok"] else 1)
    names = ["camera", "model", "display", "database", "disk", "runtime"]
    assert [c["name"] for c in report["checks"]] == names
    assert all(c["status"] == "ok" or c["fix"] for c in report["checks"])


def _tiny_card_model(path: Path, code_index: int, score: float = 0.9) -> Path:
    """A real ONNX file shaped like the card model (1x3x32x32 in, 1x57xN out) that sees one card
    everywhere: every position predicts the same box with class ``code_index`` at ``score``."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    bias = [16.0, 16.0, 4.0, 6.0] + [0.0] * 53
    bias[4 + code_index] = score
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["images", "w", "b"], ["maps"], kernel_shape=[1, 1]),
            helper.make_node("Reshape", ["maps", "shape"], ["output0"]),
        ],
        "tiny-cards",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 57, 1024])],
        initializer=[
            helper.make_tensor("w", TensorProto.FLOAT, [57, 3, 1, 1], [0.0] * 171),
            helper.make_tensor("b", TensorProto.FLOAT, [57], bias),
            helper.make_tensor("shape", TensorProto.INT64, [3], [1, 57, 1024]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def test_real_reader_reads_the_bundled_photo_with_a_real_onnx_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vision's detector and corner pairing, run by the doctor on its own test photo: a model that only
    ever sees 7H is caught missing 7D and 9D. (Without the corner reader, which would see no 7H where
    this model puts one and drop it: then the doctor says the model reads none of the cards.)"""
    from vision.base.types import CARD_CODES

    monkeypatch.setenv("TABLETALLY_READER", "off")

    probes = doctor.real_probes()
    model = _tiny_card_model(tmp_path / "cards.onnx", CARD_CODES.index("7H"))
    check = check_model(
        model, probes.load_detector, probes.test_photos(), probes.read_image, probes.blank_image
    )
    assert check.status is Status.WARN, check
    # The photo is many times the model's input, so the detector also reads tiles of it: the degenerate
    # model may then see "its" 7H in more than one place. What matters is what it read and what it missed.
    assert set(check.details["read"]) == {"7H"} and check.details["input_size"] == 32
    assert "missed 7D, 9D" in check.summary


def test_real_reader_reports_a_model_that_sees_nothing(tmp_path: Path) -> None:
    probes = doctor.real_probes()
    model = _tiny_card_model(tmp_path / "cards.onnx", 0, score=0.0)
    check = check_model(
        model, probes.load_detector, probes.test_photos(), probes.read_image, probes.blank_image
    )
    assert (
        check.status is Status.FAIL
        and "reads none of the cards in the test photo doctor-photo.jpg" in check.summary
    )


def test_missing_vision_libraries_are_reported_in_plain_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    def no_opencv() -> Probes:
        raise ImportError("No module named 'cv2'")

    monkeypatch.setattr(doctor, "real_probes", no_opencv)
    status = doctor.run(_args(tmp_path), environ={})
    err = capsys.readouterr().err
    assert status == 1
    assert "vision libraries do not load: No module named 'cv2'" in err and "deploy/install.sh" in err
