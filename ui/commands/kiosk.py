"""Start the touchscreen kiosk (what `make run` starts).

On the Pi it runs full screen; on a laptop it opens a window and, with the default camera `auto`, falls
back to the bundled demo photos when there is no Pi camera or webcam.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

SIZES = {"landscape": (800, 480), "portrait": (720, 1280)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="where the game-night record lives (default: $TABLETALLY_DATA_DIR or the user data dir)",
    )
    parser.add_argument(
        "--camera",
        default=None,
        help="camera for this run: auto, pi[:N], webcam[:N], folder:PATH or demo "
        "(default: the one chosen in Settings, else auto)",
    )
    parser.add_argument("--model", type=Path, default=None, help="card model (default: models/cards.onnx)")
    parser.add_argument("--fullscreen", action="store_true", help="fill the screen (the Pi kiosk)")
    parser.add_argument(
        "--size",
        default="landscape",
        help="window size: landscape (800x480), portrait (720x1280) or WxH (default landscape)",
    )
    parser.add_argument(
        "--share",
        action="store_true",
        help="show tonight's scores on phones on the home network for this run (a read-only page; "
        "also a switch in Settings)",
    )
    parser.add_argument(
        "--share-port",
        type=_port,
        default=None,
        help="port of the phones' page (default: the one kept in the record, else 8088)",
    )


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


def window_size(text: str) -> tuple[int, int]:
    if text in SIZES:
        return SIZES[text]
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size {text!r}: use landscape, portrait or WIDTHxHEIGHT like 800x480") from None
    if w < 320 or h < 240:
        raise ValueError(f"--size {text!r}: at least 320x240")
    return w, h


def configure_kivy(size: tuple[int, int], fullscreen: bool = False) -> None:
    """Kivy settings that must be made before Kivy's window exists."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    if "INVOCATION_ID" not in os.environ:  # under systemd, Kivy's log goes to the journal
        os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "1")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")


def run(args: argparse.Namespace) -> int:
    try:
        size = window_size(args.size)
    except ValueError as exc:
        print(f"tabletally kiosk: {exc}", file=sys.stderr)
        return 2
    from ui.store import Store, StoreError, default_data_dir

    if args.camera:
        try:
            from vision.cameras import parse_spec

            parse_spec(args.camera)
        except Exception as exc:  # noqa: BLE001 - any bad spec: say so
            print(f"tabletally kiosk: {exc}", file=sys.stderr)
            return 2
    if args.model is not None and not args.model.is_file():
        print(f"tabletally kiosk: model {args.model} does not exist", file=sys.stderr)
        return 2
    data_dir = args.data_dir or default_data_dir()
    from ui.i18n import use_saved_choice

    use_saved_choice(Path(data_dir))  # a record that cannot be opened is explained in the players' language
    try:
        store = Store(data_dir)
    except StoreError as exc:
        # Say why on the screen instead of exiting: under systemd an exit is a restart loop behind a black
        # screen. The fault screen offers the fix and starts the kiosk again.
        print(f"tabletally kiosk: {exc}", file=sys.stderr)
        return _show_fault(exc, Path(data_dir).expanduser(), size, args.fullscreen)
    configure_kivy(size, args.fullscreen)
    from ui.app import TableTallyApp

    try:
        try:
            app = TableTallyApp(
                store,
                camera=args.camera,
                model_path=args.model,
                share=args.share,
                share_port=args.share_port,
            )
        except StoreError as exc:
            print(f"tabletally kiosk: {exc}", file=sys.stderr)
            return _show_fault(exc, Path(data_dir).expanduser(), size, args.fullscreen)
        try:
            app.run()
        finally:  # the phones' server first (its port closes, its thread ends), the reading, then the record
            app.sharing.turn_off()
            app.scanner.settle()
    finally:  # also on SIGINT (the service's stop signal): checkpoint the WAL and close cleanly
        store.close()
    return 0


def _show_fault(error: Exception, data_dir: Path, size: tuple[int, int], fullscreen: bool) -> int:
    """The fault screen as the whole app; returns 1 when the players close it without a fix."""
    configure_kivy(size, fullscreen)
    from ui.screens.fault import FaultApp
    from ui.store import StoreError

    assert isinstance(error, StoreError)
    FaultApp(error, data_dir).run()
    return 1
