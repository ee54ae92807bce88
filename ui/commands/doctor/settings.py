"""The kiosk's settings as the doctor reads them: the installed env files, the data directory, the
record's own settings, and whether the kiosk's service runs."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Mapping
from pathlib import Path

ENV_FILE = Path("/etc/tabletally/kiosk.env")
SERVICE = "tabletally-kiosk.service"
DB_NAME = "tabletally.sqlite3"  # ui.store.DB_NAME; repeated so that --help needs no imports
ENV_DATA_DIR = "TABLETALLY_DATA_DIR"


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a systemd EnvironmentFile ({} when the file is missing or unreadable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def kiosk_environment(environ: Mapping[str, str], env_file: Path) -> dict[str, str]:
    """The installed kiosk's settings (env file, then local.env beside it) under this process's own."""
    merged = read_env_file(env_file)
    merged.update(read_env_file(env_file.with_name("local.env")))
    merged.update(environ)
    return merged


def resolve_data_dir(explicit: Path | None, env: Mapping[str, str]) -> Path:
    if explicit is not None:
        return explicit.expanduser()
    if env.get(ENV_DATA_DIR):
        return Path(env[ENV_DATA_DIR]).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("tabletally", appauthor=False))


def record_settings(data_dir: Path) -> dict[str, str]:
    """The record's settings the doctor needs (sharing, its port, the camera); {} without a record."""
    try:
        con = sqlite3.connect(f"file:{data_dir / DB_NAME}?mode=ro", uri=True, timeout=2)
        try:
            rows = con.execute(
                "SELECT key, value FROM settings WHERE key IN ('share', 'share_port', 'camera')"
            ).fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return {}
    return {str(k): str(v) for k, v in rows}


def service_active(name: str = SERVICE) -> bool:
    """Whether systemd says the unit ``name`` is running (False where there is no systemd)."""
    try:
        result = subprocess.run(
            ["systemctl", "is-active", "--quiet", name],
            check=False,
            timeout=5,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0
