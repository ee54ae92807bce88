#!/usr/bin/env bash
# Turns a Raspberry Pi 5 or 4 with Raspberry Pi OS (64-bit, Lite or desktop), Trixie or Bookworm, into a
# TableTally kiosk: Debian packages (picamera2, camera tools, fonts, the libraries Kivy's SDL needs), a venv that
# sees apt's picamera2 and numpy, TableTally installed into it without replacing that numpy, the Kivy
# settings for the official touchscreens, a systemd service that starts the kiosk at boot, and no screen
# blanking. Safe to run again (it only changes what differs); --dry-run shows the plan and changes nothing.
#
#   sudo deploy/install.sh                  # everything detected: session, display, user
#   sudo deploy/install.sh --display td2-landscape --user family
#   deploy/install.sh --dry-run             # the plan, without root and without changing anything
#
# Downloads happen only through apt-get and pip (Debian's and Raspberry Pi's archives, PyPI). The lock pip
# installs is the release's own (deploy/requirements-pi-<release>.txt, from /etc/os-release); a release,
# an architecture or a Python without a lock is refused before anything is changed.
#
# TABLETALLY_PI_CHECK=1 is for `make pi-check` only (deploy/pi-check.sh, in a Debian arm64 root under
# emulation): the packages of the Raspberry Pi archive are left out (it is not reachable there), picamera2
# may be missing from the import check, and the doctor is not run (pi-check runs `tabletally doctor --json`
# itself). Each is said when it happens.
set -euo pipefail

PROG=install.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
# shellcheck source=deploy/lib.sh
. "$HERE/lib.sh"

usage() {
  cat <<EOF
Usage: sudo deploy/install.sh [options]

Installs TableTally on this Raspberry Pi and starts the kiosk at every boot.

Options:
  --user NAME        account the kiosk runs as (default: the one that ran sudo: ${SUDO_USER:-none})
  --session KIND     kms (Raspberry Pi OS Lite: full screen without a desktop) or desktop
                     (full-screen window in the desktop session); default: detected
  --display KIND     dsi7 (official 7" 800x480), td2-landscape or td2-portrait (Touch Display 2,
                     720x1280), hdmi; default: detected from the connected screen
  --rotation DEG     rotate the picture and touch by 0, 90, 180 or 270 degrees (default: the display's)
  --touch PROVIDER   Kivy touch reader for the panel: mtdev (default) or hidinput
  --no-start         install and enable the service, but do not (re)start it now
  --runtime NAME     the card model's runtime: auto (default: times each runtime installed on this Pi,
                     ONNX Runtime, NCNN and OpenVINO where present, and writes the fastest into the
                     kiosk's settings; ONNX Runtime unless another is faster by more than a tenth),
                     onnx, ncnn or openvino
  --share            also let phones on the home network reach the kiosk's scores page (the same as
                     sudo deploy/share.sh on; without it nothing is opened, and an earlier --share stays)
  --dry-run          print what would be done; change nothing (no root needed)
  --force            go on even if this is not a Raspberry Pi board (testing only)
  -h, --help         this text
EOF
}

KIOSK_USER=${SUDO_USER:-}
SESSION=auto
DISPLAY_KIND=auto
ROTATION=
TOUCH=mtdev
START=1
FORCE=0
SHARE=0
RUNTIME=auto
PREFIX=/opt/tabletally
STATE_DIR=/var/lib/tabletally
ETC_DIR=/etc/tabletally
SYSTEM_PYTHON=${TABLETALLY_SYSTEM_PYTHON:-/usr/bin/python3}
PI_CHECK=${TABLETALLY_PI_CHECK:-0}
# From the Raspberry Pi archive (archive.raspberrypi.com), not Debian's: what pi-check cannot install.
PI_ARCHIVE_PACKAGES=" python3-picamera2 rpicam-apps rpicam-apps-lite "

need_value() {
  if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)" 2; fi
}
while [ $# -gt 0 ]; do
  case $1 in
    --user) need_value "$@"; KIOSK_USER=$2; shift 2 ;;
    --session) need_value "$@"; SESSION=$2; shift 2 ;;
    --display) need_value "$@"; DISPLAY_KIND=$2; shift 2 ;;
    --rotation) need_value "$@"; ROTATION=$2; shift 2 ;;
    --touch) need_value "$@"; TOUCH=$2; shift 2 ;;
    --no-start) START=0; shift ;;
    --runtime) need_value "$@"; RUNTIME=$2; shift 2 ;;
    --share) SHARE=1; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    --force) FORCE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done

case $SESSION in auto | kms | desktop) ;; *) die "--session must be auto, kms or desktop, not '$SESSION'" 2 ;; esac
case $DISPLAY_KIND in
  auto | dsi7 | td2-landscape | td2-portrait | hdmi) ;;
  *) die "--display must be auto, dsi7, td2-landscape, td2-portrait or hdmi, not '$DISPLAY_KIND'" 2 ;;
esac
case $ROTATION in "" | 0 | 90 | 180 | 270) ;; *) die "--rotation must be 0, 90, 180 or 270, not '$ROTATION'" 2 ;; esac
case $TOUCH in mtdev | hidinput) ;; *) die "--touch must be mtdev or hidinput, not '$TOUCH'" 2 ;; esac
case $RUNTIME in auto | onnx | ncnn | openvino) ;; *) die "--runtime must be auto, onnx, ncnn or openvino, not '$RUNTIME'" 2 ;; esac

VENV=$PREFIX/venv
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tabletally-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
REBOOT_NEEDED=0

# --- 1. this machine -------------------------------------------------------------------------------

step "Checking this machine"
dry && log "dry run: nothing will be changed"
require_pi "$FORCE"

# The release decides the lock (deploy/requirements-pi-<release>.txt, written by deploy/lock.py for its
# Python and apt's numpy). Anything without a lock is refused here, before anything is changed.
[ -x "$SYSTEM_PYTHON" ] || die "$SYSTEM_PYTHON is missing: Raspberry Pi OS always has it; is this Raspberry Pi OS?" 3
codename=unknown
pretty="an unknown system"
if [ -r "$(path /etc/os-release)" ]; then
  # shellcheck disable=SC1090,SC1091  # os-release is shell syntax by definition
  codename=$(. "$(path /etc/os-release)" && printf '%s' "${VERSION_CODENAME:-unknown}")
  # shellcheck disable=SC1090,SC1091
  pretty=$(. "$(path /etc/os-release)" && printf '%s' "${PRETTY_NAME:-$codename}")
fi
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
python_version=$("$SYSTEM_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)
LOCK_NAME=requirements-pi-$codename.txt
lock_python=
if [ -f "$HERE/$LOCK_NAME" ]; then lock_python=$(lock_header "$HERE/$LOCK_NAME" python); fi
refusal=
case $arch in
  arm64 | aarch64) ;;
  *) refusal="it is $arch, not 64-bit ARM (ONNX Runtime and Kivy publish no 32-bit ARM wheels)" ;;
esac
if [ -z "$refusal" ] && [ -z "$lock_python" ]; then
  refusal="TableTally has no lock for the release '$codename'"
elif [ -z "$refusal" ] && [ "$python_version" != "$lock_python" ]; then
  refusal="its python3 is ${python_version:-missing}, and the $codename lock is for Python $lock_python"
fi
if [ -n "$refusal" ]; then
  die "this system ($pretty, $arch) is not supported: $refusal.
  TableTally installs on $(supported_releases).
  Flash 'Raspberry Pi OS (64-bit)' (Lite or with desktop) with Raspberry Pi Imager, then run me again.
  Nothing was changed." 3
fi
log "system: $pretty ($arch, Python $python_version): the $codename lock, deploy/$LOCK_NAME"

if ! dry && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  die "run me with sudo (sudo deploy/install.sh), or add --dry-run to only see the plan" 4
fi

[ -n "$KIOSK_USER" ] || die "which account should run the kiosk? Run me with sudo from that account, or add --user NAME" 2
[ "$KIOSK_USER" != root ] || die "the kiosk must not run as root; add --user NAME with your ordinary account" 2
KIOSK_UID=$(user_uid "$KIOSK_USER")
[ -n "$KIOSK_UID" ] || die "there is no account called '$KIOSK_USER' (check: getent passwd $KIOSK_USER)" 2
log "kiosk account: $KIOSK_USER (uid $KIOSK_UID)"

# --- 2. session and display --------------------------------------------------------------------------

step "Choosing how the kiosk reaches the screen"
if [ "$SESSION" = auto ]; then
  if [ -e "$(path /etc/systemd/system/display-manager.service)" ]; then
    SESSION=desktop
    log "session: desktop (a desktop login manager is enabled; the kiosk is a full-screen window in it)"
  else
    SESSION=kms
    log "session: kms (no desktop: the kiosk draws straight to the screen through KMS/DRM)"
  fi
else
  log "session: $SESSION (from --session)"
fi

detect_display() {
  local status connector mode found=""
  for status in "$(path /sys/class/drm)"/card*-*/status; do
    if [ ! -r "$status" ] || [ "$(cat "$status")" != connected ]; then continue; fi
    connector=$(basename "$(dirname "$status")")
    mode=$(head -n 1 "$(dirname "$status")/modes" 2>/dev/null || true)
    case $connector in
      *-DSI-*)
        case $mode in
          800x480) printf 'dsi7 %s %s' "$connector" "$mode"; return 0 ;;
          720x1280) printf 'td2-landscape %s %s' "$connector" "$mode"; return 0 ;;
          *) found="dsi7 $connector ${mode:-unknown}" ;;
        esac
        ;;
      *) [ -n "$found" ] || found="hdmi $connector ${mode:-unknown}" ;;
    esac
  done
  printf '%s' "$found"
}

if [ "$DISPLAY_KIND" = auto ]; then
  detected=$(detect_display)
  if [ -n "$detected" ]; then
    read -r DISPLAY_KIND connector mode <<<"$detected"
    log "display: $DISPLAY_KIND ($connector, $mode)"
  else
    DISPLAY_KIND=hdmi
    warn "no connected screen found in /sys/class/drm; assuming an HDMI screen (choose with --display)"
  fi
else
  log "display: $DISPLAY_KIND (from --display)"
fi
if [ -z "$ROTATION" ]; then
  case $DISPLAY_KIND in td2-landscape) ROTATION=90 ;; *) ROTATION=0 ;; esac
fi
log "rotation: $ROTATION degrees; touch reader: $TOUCH"

# --- 3. Debian packages ---------------------------------------------------------------------------------

step "Installing Debian packages"
APT_PACKAGES=(
  python3-venv            # the venv (with ensurepip)
  python3-picamera2       # the camera library: from apt, built for this kernel's libcamera
  python3-numpy           # the numpy picamera2 is built against
  fonts-noto-core         # Devanagari for player names
  libgl1 libegl1 libgles2 # OpenGL ES through Mesa (V3D on the Pi 4 and 5), for Kivy and OpenCV
  libgbm1 libdrm2         # KMS/DRM output for Kivy's SDL on Raspberry Pi OS Lite
  sqlite3                 # to look at the score database when troubleshooting
  git                     # deploy/update.sh pulls new versions
)
# Kivy's multitouch reader for the touch panels, and GLib for OpenCV's wheel: renamed in Trixie (64-bit
# time_t), where the old names are only virtual packages that dpkg never lists as installed.
case $codename in
  bookworm) APT_PACKAGES+=(libmtdev1 libglib2.0-0) ;;
  *) APT_PACKAGES+=(libmtdev1t64 libglib2.0-0t64) ;;
esac
if [ "$SESSION" = desktop ]; then
  APT_PACKAGES+=(rpicam-apps libx11-6) # rpicam-hello with a preview window; X11 client for Xwayland
else
  APT_PACKAGES+=(rpicam-apps-lite) # rpicam-hello without the desktop preview
fi
missing=()
left_out=()
for pkg in "${APT_PACKAGES[@]}"; do
  if [ "$PI_CHECK" = 1 ] && [[ $PI_ARCHIVE_PACKAGES == *" $pkg "* ]]; then
    left_out+=("$pkg")
    continue
  fi
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#left_out[@]} -gt 0 ]; then
  log "pi-check: left out (Raspberry Pi archive, not reachable here): ${left_out[*]}"
fi
if [ ${#missing[@]} -eq 0 ]; then
  log "all ${#APT_PACKAGES[@]} Debian packages are installed"
else
  log "missing: ${missing[*]}"
  run apt-get update
  # No recommends: on Lite, picamera2's recommends would pull the whole Qt/desktop stack.
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# --- 4. Python environment ---------------------------------------------------------------------------------

step "Setting up the Python environment in $VENV"
venv_dir=$(path "$VENV")
venv_ok=0
venv_python=
if [ -f "$venv_dir/pyvenv.cfg" ]; then
  venv_python=$(sed -n 's/^version *= *\([0-9]*\.[0-9]*\).*/\1/p' "$venv_dir/pyvenv.cfg" | head -n 1)
fi
if [ -n "$venv_python" ] && [ "$venv_python" != "$python_version" ]; then
  # Raspberry Pi OS was upgraded (Bookworm -> Trixie): the old venv's packages are for another Python.
  warn "$VENV was made for Python $venv_python; this system's is $python_version: making it again"
  remove_path "$venv_dir"
elif [ -x "$venv_dir/bin/python" ]; then
  if grep -Eq '^include-system-site-packages *= *true' "$venv_dir/pyvenv.cfg" 2>/dev/null; then
    venv_ok=1
    log "venv exists and sees the system packages (picamera2, numpy)"
  else
    warn "$VENV exists but does not see the system packages (picamera2 would be missing): recreating it"
    remove_path "$venv_dir"
  fi
fi
if [ "$venv_ok" = 0 ]; then
  ensure_dir "$(path "$PREFIX")" 0755 root:root
  run "$SYSTEM_PYTHON" -m venv --system-site-packages "$venv_dir"
fi

# Pin numpy (and picamera2's other Python dependencies) at apt's versions: pip then reuses the system
# copies instead of installing newer wheels that picamera2's compiled parts were not built against.
"$SYSTEM_PYTHON" "$HERE/render.py" --out "$WORK/constraints.txt" constraints
if ! grep -q '^numpy==' "$WORK/constraints.txt"; then
  if dry; then
    warn "the system numpy is not installed yet; the real run pins the version python3-numpy installs"
  else
    die "the system numpy is missing after apt-get (python3-numpy); cannot pin it: see 'apt-cache policy python3-numpy'"
  fi
fi
write_file "$(path "$PREFIX/constraints.txt")" 0644 root:root "$WORK/constraints.txt"

PIP=("$venv_dir/bin/python" -m pip)
# What sudo installs is what the checkout holds: say so when the kiosk's account could change it.
if [ -z "$ROOT" ] && [ "$(stat -c %U "$REPO")" = "$KIOSK_USER" ]; then
  warn "$REPO belongs to $KIOSK_USER: the kiosk's service cannot write it (its home folders are hidden and the
  rest is read-only to it), but anyone logged in as $KIOSK_USER can change what the next sudo deploy/update.sh
  installs as root. On a shared account keep the checkout root's: sudo chown -R root:root $REPO"
fi
# pip builds in the source tree: build from a copy of what the package is made of, so no root-owned
# build files land in the checkout and datasets, training runs and a developer's .venv stay out. The copy
# is root's (in the installer's private work folder): what is installed is what was copied.
SRC=$WORK/src
SOURCES=()
for item in pyproject.toml README.md LICENSE LICENSE.md NOTICE.md scorer vision ui models deploy; do
  if [ -e "$REPO/$item" ]; then SOURCES+=("$item"); fi
done
if dry; then
  printf 'would copy: %s -> %s (%s)\n' "$REPO" "$SRC" "${SOURCES[*]}"
else
  mkdir -p "$SRC"
  tar -C "$REPO" --exclude=__pycache__ --exclude='*.pyc' --exclude=./models/checkpoints \
    --exclude=./models/.yolo-config -cf - "${SOURCES[@]}" | tar -C "$SRC" -xf -
fi
# Every dependency from this release's lock (deploy/requirements-pi-<release>.txt, written by
# deploy/lock.py): exact versions, each wheel checked against its sha256, binary wheels only (no package
# builds or runs code while it is installed), no dependency resolution. pip is the venv's own, not
# upgraded from the network.
run "${PIP[@]}" install --require-hashes --only-binary :all: --no-deps \
  --constraint "$(path "$PREFIX/constraints.txt")" -r "$SRC/deploy/$LOCK_NAME"
# TableTally itself from the copy, with the locked build tools already in the venv: nothing downloaded.
run "${PIP[@]}" install --upgrade --no-deps --no-index --no-build-isolation \
  --constraint "$(path "$PREFIX/constraints.txt")" "$SRC"
# The code the kiosk runs is root's: its account may read and run it, never change it.
if ! dry && [ -z "$ROOT" ]; then
  if [ -n "$(find "$venv_dir" \( ! -user root -o -perm -g+w -o -perm -o+w \) -print -quit)" ]; then
    run chown -R root:root "$venv_dir"
    run chmod -R go-w "$venv_dir"
  fi
fi
CHECK_IMPORTS='import os, sys, numpy, cv2, onnxruntime, kivy
try:
    import picamera2
except ImportError as exc:
    if os.environ.get("TABLETALLY_PI_CHECK") != "1":
        sys.exit(f"picamera2 is not importable in the venv: {exc}")
    print("pi-check: picamera2 is not installed here (Raspberry Pi archive)")
if not numpy.__file__.startswith("/usr/lib/python3/"):
    sys.exit(f"numpy {numpy.__version__} came from {numpy.__file__}, not from apt: picamera2 may break")
print(f"numpy {numpy.__version__} (system), OpenCV {cv2.__version__}, ONNX Runtime {onnxruntime.__version__}, "
      f"Kivy {kivy.__version__}" + (", picamera2 OK" if "picamera2" in sys.modules else ""))'
run env KIVY_NO_ARGS=1 KIVY_NO_CONSOLELOG=1 KIVY_NO_FILELOG=1 TABLETALLY_PI_CHECK="$PI_CHECK" \
  "$venv_dir/bin/python" -c "$CHECK_IMPORTS"
ensure_link "$(path /usr/local/bin/tabletally)" "$VENV/bin/tabletally"
# Which release's lock is installed: deploy/update.sh notices when Raspberry Pi OS has been upgraded since.
printf '%s %s\n' "$codename" "$python_version" >"$WORK/release"
write_file "$(path "$PREFIX/release")" 0644 root:root "$WORK/release"

# --- 5. kiosk settings ---------------------------------------------------------------------------------

step "Writing the kiosk settings"
SETTINGS=(--user "$KIOSK_USER" --uid "$KIOSK_UID" --venv "$VENV" --state-dir "$STATE_DIR"
  --env-file "$ETC_DIR/kiosk.env" --session "$SESSION" --display "$DISPLAY_KIND" --rotation "$ROTATION"
  --touch "$TOUCH")
ensure_dir "$(path "$STATE_DIR")" 0750 "$KIOSK_USER"
ensure_dir "$(path "$STATE_DIR/data")" 0750 "$KIOSK_USER"
ensure_dir "$(path "$STATE_DIR/kivy")" 0750 "$KIOSK_USER"
"$SYSTEM_PYTHON" "$HERE/render.py" --out "$WORK/kiosk.env" env "${SETTINGS[@]}"
# The card model's runtime: timed here, on this Pi, by the code `tabletally doctor` times it with
# (vision.runtimes.choice: each runtime in a child process); its two lines (why, then the setting) go into
# kiosk.env, which the service reads before local.env (where a setting of one's own wins).
CHOOSE=("$venv_dir/bin/python" -m vision.runtimes.choice --choose)
if [ "$RUNTIME" != auto ]; then
  log "card model runtime: $RUNTIME (--runtime)"
  printf '# the card model runtime given to the installer (--runtime %s)\nTABLETALLY_RUNTIME=%s\n' \
    "$RUNTIME" "$RUNTIME" >"$WORK/runtime.env"
elif dry; then
  printf 'would run: %s\n' "$(quoted "${CHOOSE[@]}")"
  printf '# (the dry run times nothing: ONNX Runtime, the default, until timed)\nTABLETALLY_RUNTIME=onnx\n' \
    >"$WORK/runtime.env"
else
  log "timing the card model with each runtime installed on this Pi (up to a few minutes) ..."
  if "${CHOOSE[@]}" >"$WORK/runtime.env" 2>"$WORK/runtime.err" &&
    grep -Eq '^TABLETALLY_RUNTIME=(onnx|ncnn|openvino)$' "$WORK/runtime.env"; then
    log "card model runtime: $(sed -n 's/^TABLETALLY_RUNTIME=//p' "$WORK/runtime.env") ($(sed -n 's/^# //p' "$WORK/runtime.env"))"
  else
    warn "the runtimes could not be timed ($(tail -n 1 "$WORK/runtime.err" 2>/dev/null)); the kiosk reads with
  ONNX Runtime, the default. 'tabletally doctor' times them again."
    printf '# the runtimes could not be timed when installing: ONNX Runtime, the default\nTABLETALLY_RUNTIME=onnx\n' \
      >"$WORK/runtime.env"
  fi
fi
# Times vary from run to run: only the choice is kept (the doctor shows today's times), so a second install
# with the same choice leaves kiosk.env as it was.
{
  printf '# The card model runtime, chosen by deploy/install.sh on this Pi (tabletally doctor shows why):\n'
  grep '^TABLETALLY_RUNTIME=' "$WORK/runtime.env"
} >>"$WORK/kiosk.env"
write_file "$(path "$ETC_DIR/kiosk.env")" 0644 root:root "$WORK/kiosk.env"

KIVY_CONFIG=(--session "$SESSION" --rotation "$ROTATION" --touch "$TOUCH")
if [ -x "$venv_dir/bin/python" ] && "$venv_dir/bin/python" -c 'import kivy' >/dev/null 2>&1; then
  "$venv_dir/bin/python" "$HERE/render.py" --out "$WORK/kivy.ini" kivy-config "${KIVY_CONFIG[@]}"
  write_file "$(path "$STATE_DIR/kivy/config.ini")" 0644 "$KIOSK_USER" "$WORK/kivy.ini"
elif dry; then
  printf 'would write: %s (Kivy defaults plus: %s)\n' "$(path "$STATE_DIR/kivy/config.ini")" "${KIVY_CONFIG[*]}"
else
  die "Kivy is not importable in $VENV after pip install; see the pip output above"
fi

# --- 6. boot service ---------------------------------------------------------------------------------

step "Installing the boot service $SERVICE"
"$SYSTEM_PYTHON" "$HERE/render.py" --out "$WORK/$SERVICE" unit "${SETTINGS[@]}"
write_file "$(path "/etc/systemd/system/$SERVICE")" 0644 root:root "$WORK/$SERVICE"

groups_wanted=(video render)
[ "$SESSION" = kms ] && groups_wanted+=(input)
groups_missing=()
current_groups=" $(id -nG "$KIOSK_USER" 2>/dev/null || true) "
for group in "${groups_wanted[@]}"; do
  [[ $current_groups == *" $group "* ]] || groups_missing+=("$group")
done
if [ ${#groups_missing[@]} -gt 0 ]; then
  # The service gets these groups anyway (SupplementaryGroups); this is for 'tabletally doctor' in a shell.
  run usermod -aG "$(IFS=,; printf '%s' "${groups_missing[*]}")" "$KIOSK_USER"
  REBOOT_NEEDED=1
else
  log "$KIOSK_USER is in the groups ${groups_wanted[*]}"
fi
if [ "$SHARE" = 1 ]; then
  # Phones on the home network: the drop-in deploy/share.sh installs (private ranges only).
  write_file "$(path "/etc/systemd/system/$SERVICE.d/tabletally-share.conf")" 0644 root:root "$HERE/tabletally-share.conf"
fi
run systemctl daemon-reload
run systemctl enable "$SERVICE"

# --- 7. screen blanking and boot ------------------------------------------------------------------------

step "Turning screen blanking off"
if [ "$SESSION" = kms ]; then
  cmdline=$(path /boot/firmware/cmdline.txt)
  [ -f "$cmdline" ] || cmdline=$(path /boot/cmdline.txt)
  if [ ! -f "$cmdline" ]; then
    warn "no /boot/firmware/cmdline.txt: add consoleblank=0 to the kernel command line yourself"
  elif grep -Eq '(^| )consoleblank=0( |$)' "$cmdline"; then
    log "console blanking is already off (consoleblank=0 in $cmdline)"
  else
    # One line; replace an existing consoleblank=N or append.
    sed -E -e 's/(^| )consoleblank=[0-9]+//g' -e 's/[[:space:]]*$/ consoleblank=0/' "$cmdline" >"$WORK/cmdline.txt"
    if [ ! -e "$cmdline.tabletally-orig" ]; then
      run cp -p "$cmdline" "$cmdline.tabletally-orig"
    fi
    write_file "$cmdline" 0644 root:root "$WORK/cmdline.txt"
    REBOOT_NEEDED=1
  fi
  if [ -e "$(path /etc/systemd/system/display-manager.service)" ]; then
    warn "a desktop login manager is enabled and will hold the screen; either use --session desktop or switch
  to console boot: sudo raspi-config nonint do_boot_behaviour B1"
  fi
else
  if command -v raspi-config >/dev/null; then
    run raspi-config nonint do_blanking 1        # 1 = blanking off (desktop screen saver / DPMS)
    run raspi-config nonint do_boot_behaviour B4 # boot to the desktop, logged in automatically
    REBOOT_NEEDED=1
  else
    warn "raspi-config is missing: turn screen blanking off and desktop autologin on in the desktop's settings"
  fi
fi

# --- 8. check and start -------------------------------------------------------------------------------

step "Checking the setup"
if [ "$PI_CHECK" = 1 ]; then
  log "pi-check: not running the doctor here (pi-check runs tabletally doctor --json next)"
elif dry; then
  printf 'would run: %s\n' "$(quoted runuser -u "$KIOSK_USER" -- "$VENV/bin/tabletally" doctor)"
elif [ -z "$ROOT" ]; then
  runuser -u "$KIOSK_USER" -- "$VENV/bin/tabletally" doctor ||
    warn "'tabletally doctor' found problems (above); the kiosk is installed anyway"
fi

if [ "$START" = 1 ] && [ "$SESSION" = kms ] && [ "$(tty 2>/dev/null || true)" = /dev/tty1 ]; then
  # The kiosk takes over the first console's screen and keyboard: starting it now would hide this shell.
  log "not starting the kiosk now: you are typing on the console it takes over; it starts at the next boot"
  START=0
fi
if [ "$START" = 1 ]; then
  step "Starting the kiosk"
  run systemctl restart "$SERVICE"
fi

echo
if dry; then
  log "dry run finished: nothing was changed"
else
  log "TableTally is installed. Logs: journalctl -u tabletally-kiosk -f    Check: tabletally doctor"
  [ "$REBOOT_NEEDED" = 1 ] && log "reboot once (sudo reboot) so the boot and group settings take effect"
fi
exit 0
