#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2317  # code for other shells in single quotes; steps called through step()
# make pi-check: the Pi's install and the kiosk, proven on arm64 on this machine, for each Raspberry Pi OS
# release there is a lock for. For each release it:
#
#   root     builds (once; cached in runs/pi-check/cache/) a Debian arm64 root with mmdebstrap, run through
#            qemu-user-static, and starts each run from a fresh copy of it;
#   install  runs deploy/install.sh inside it, as on a Pi (--force: no Raspberry Pi board; --no-start;
#            --runtime onnx: see runtime), with TABLETALLY_PI_CHECK=1: the packages of the Raspberry Pi
#            archive (picamera2, rpicam-apps) are left out and named, everything else in its list is
#            installed, and the release's lock goes in exactly as on a Pi;
#   detect   reads the demo photos with `tabletally detect --json` there and here (this machine's reading,
#            in the same run), and compares the cards;
#   doctor   runs `tabletally doctor --json` there: it must report the missing camera plainly;
#   runtime  the installer's runtime choice, timing ONNX Runtime and NCNN on one demo photo, without the
#            installer's 3-minute limit per runtime (emulation is far slower than a Pi);
#   kiosk    starts the installed kiosk headless (SDL offscreen, the installer's settings) and photographs
#            its first screen (runs/pi-check/<release>/kiosk-home.png), which must be the home screen with
#            the words it shows here;
#   unit     systemd-analyze verify and security on the installed unit, with the release's own systemd,
#            and on the unit install.sh renders for the desktop session;
#
# It prints `pi-check <release>: ok (...)` with the time of each step, or what failed, and exits 1 on any
# failure; 2 when it cannot run here at all (no root, no emulation, no network), saying why.
#
#   sudo deploy/pi-check.sh                   # both releases, the working tree as it is
#   sudo deploy/pi-check.sh trixie            # one
#   PI_CHECK_REV=HEAD deploy/pi-check.sh      # a commit instead of the working tree
#   PI_CHECK_PHOTOS=2 deploy/pi-check.sh      # only the first 2 demo photos (each takes minutes there)
#
# Under emulation each release takes tens of minutes: it proves that things work, never how fast.
set -euo pipefail

# The braces make bash read the whole script before running any of it: editing it during a run (tens of
# minutes) cannot change the run.
{

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
OUT=${PI_CHECK_OUT:-$REPO/runs/pi-check}
MIRROR=${PI_CHECK_MIRROR:-http://deb.debian.org/debian}
HOST_PYTHON=${PI_CHECK_HOST_PYTHON:-$REPO/.venv/bin/python}
TOOLS=$REPO/ui/devtools # the checking tools (kiosk_shot.py, pi_check.py): always this checkout's
REV=${PI_CHECK_REV:-}
KIOSK_USER=pi
SECURITY_LIMIT=4.0
NICE=(nice -n 10)
# The root starts as a minimal Debian with Python, systemd (for the unit's checks and the groups it makes)
# and Mesa (the Pi has V3D; here llvmpipe renders headless, through the same libGL/libEGL/libGLES and numpy
# install.sh asks for, which are therefore already there when it runs); install.sh installs the rest of
# its list.
BASE_PACKAGES=python3,python3-venv,python3-numpy,systemd,ca-certificates,libegl-mesa0,libgl1-mesa-dri,libgles2,libgl1,libegl1

say() { printf 'pi-check: %s\n' "$*"; }
cannot() {
  printf 'pi-check: cannot run here: %s\n' "$1" >&2
  exit 2
}

releases=("$@")
if [ ${#releases[@]} -eq 0 ]; then
  for lock in "$HERE"/requirements-pi-*.txt; do
    name=${lock##*/requirements-pi-}
    releases+=("${name%.txt}")
  done
fi
for release in "${releases[@]}"; do
  [ -f "$HERE/requirements-pi-$release.txt" ] || cannot "there is no lock for '$release' (deploy/requirements-pi-$release.txt)"
done

# --- can it run here? ------------------------------------------------------------------------------------

[ "$(id -u)" -eq 0 ] || cannot "it needs root (mmdebstrap, chroot, mounts): run sudo make pi-check"
for tool in mmdebstrap unshare chroot; do
  command -v "$tool" >/dev/null || cannot "$tool is missing: sudo apt-get install mmdebstrap qemu-user-static binfmt-support"
done
if [ "$(uname -m)" != aarch64 ]; then
  binfmt=/proc/sys/fs/binfmt_misc/qemu-aarch64
  if [ ! -r "$binfmt" ] || ! grep -q '^enabled' "$binfmt"; then
    cannot "arm64 programs do not run here: install qemu-user-static and binfmt-support, then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable qemu-aarch64"
  fi
fi
[ -x "$HOST_PYTHON" ] || cannot "$HOST_PYTHON is missing: run make setup first (this machine's reading is the reference)"
reachable() {
  python3 - "$1" <<'EOF' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="HEAD"), timeout=30)
EOF
}
reachable "$MIRROR/dists/bookworm/Release" ||
  cannot "Debian's archive ($MIRROR) cannot be reached: the arm64 roots and their packages come from it"
reachable "https://pypi.org/simple/pip/" || cannot "PyPI cannot be reached: the locked wheels come from it"

mkdir -p "$OUT/cache"

# --- the checkout to install -----------------------------------------------------------------------------

# This run's copy of the checkout and this machine's reference, apart from a run for other releases.
RUN=$OUT/run-$(IFS=-; printf '%s' "${releases[*]}")
SRC=$RUN/src
rm -rf "$RUN"
mkdir -p "$SRC"
if [ -n "$REV" ]; then
  git -C "$REPO" archive "$REV" | tar -x -C "$SRC"
  say "installing commit $(git -C "$REPO" rev-parse --short "$REV")"
else
  (cd "$REPO" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c \
    'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh | tar --null -T - -cf -) | tar -x -C "$SRC"
  say "installing the working tree of $REPO"
fi
PHOTOS=()
for photo in "$SRC"/vision/demo/*.jpg; do PHOTOS+=("${photo##*/}"); done
[ ${#PHOTOS[@]} -gt 0 ] || cannot "no demo photos in vision/demo/"
if [ -n "${PI_CHECK_PHOTOS:-}" ]; then # a quicker check: only the first N demo photos
  [[ $PI_CHECK_PHOTOS =~ ^[1-9][0-9]*$ ]] || cannot "PI_CHECK_PHOTOS must be a whole number, not '$PI_CHECK_PHOTOS'"
  PHOTOS=("${PHOTOS[@]:0:$PI_CHECK_PHOTOS}")
fi

# This machine's reading and home screen: the reference, from the same source, in this run.
say "this machine: reading ${#PHOTOS[@]} demo photos and starting the kiosk headless"
HOST_OUT=$RUN/here
rm -rf "$HOST_OUT"
mkdir -p "$HOST_OUT"
(cd "$SRC/vision/demo" && PYTHONPATH=$SRC "${NICE[@]}" "$HOST_PYTHON" -c \
  'import sys; from ui.cli import main; sys.exit(main())' detect --json "${PHOTOS[@]}") \
  >"$HOST_OUT/detect.json" 2>"$HOST_OUT/detect.log" || cannot "this machine's own reading failed: $HOST_OUT/detect.log"
(cd "$HOST_OUT" && KIVY_HOME=$HOST_OUT/kivy KIVY_NO_CONSOLELOG=1 PYTHONPATH=$SRC "${NICE[@]}" \
  "$HOST_PYTHON" "$TOOLS/kiosk_shot.py" --wait 300 "$HOST_OUT/kiosk-home.png" --data-dir "$HOST_OUT/data") \
  >"$HOST_OUT/kiosk.log" 2>&1 || cannot "this machine's own kiosk did not start: $HOST_OUT/kiosk.log"

# --- in the root --------------------------------------------------------------------------------------------

# in_root ROOT CMD...: run CMD in the arm64 root, in a mount namespace of its own (proc, shared memory and
# ptys mounted for it, gone when it ends), with a plain environment.
in_root() {
  local root=$1
  shift
  unshare --mount --propagation private -- bash -c '
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount -t tmpfs -o mode=1777,size=512m shm "$root/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root LANG=C.UTF-8 TERM=dumb "$@"' in_root "$root" "${NICE[@]}" "$@"
}

# build_root RELEASE CACHE: the cached arm64 root of RELEASE (made once).
build_root() {
  local release=$1 cache=$2
  local key="$release arm64 minbase $BASE_PACKAGES $MIRROR"
  if [ -f "$cache/.pi-check-key" ] && [ "$(cat "$cache/.pi-check-key")" = "$key" ]; then
    return 0
  fi
  rm -rf --one-file-system "$cache" "$cache.tmp"
  "${NICE[@]}" mmdebstrap --arch=arm64 --variant=minbase --include="$BASE_PACKAGES" --format=directory \
    "$release" "$cache.tmp" "deb $MIRROR $release main" "deb $MIRROR $release-updates main"
  printf '%s' "$key" >"$cache.tmp/.pi-check-key"
  mv "$cache.tmp" "$cache"
}

seconds() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

failed=0
for release in "${releases[@]}"; do
  dir=$OUT/$release
  root=$dir/root
  mkdir -p "$dir"
  times=()
  failure=

  # step NAME FUNCTION: run it, timed, its output in dir/NAME.log; the first failure stops the release.
  step() {
    local name=$1 start status
    shift
    [ -z "$failure" ] || return 0
    say "$release: $name ..."
    start=$SECONDS
    status=0
    "$@" >"$dir/$name.log" 2>&1 || status=$?
    times+=("$name $(seconds $((SECONDS - start)))")
    if [ "$status" -ne 0 ]; then
      failure="$name ($(grep -v '^\s*$' "$dir/$name.log" | tail -n 1 | cut -c1-300); log: $dir/$name.log)"
    fi
  }

  # Each step's commands, joined by && : a function run as `f || status=$?` does not stop at a failure.
  do_root() {
    build_root "$release" "$OUT/cache/$release-arm64" &&
      { [ ! -d "$root" ] || rm -rf --one-file-system "$root"; } &&
      cp -a "$OUT/cache/$release-arm64" "$root" &&
      mkdir -p "$root/dev/shm" "$root/dev/pts" &&
      cp /etc/resolv.conf "$root/etc/resolv.conf" &&
      # pip inside reaches the package indexes this machine is given, with its certificates.
      { [ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$root/etc/pip.conf"; } &&
      cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt" &&
      # The groups the Pi's udev makes for its devices (a root without udev lacks them), and the account.
      for group in input render; do
        in_root "$root" sh -c "getent group $group >/dev/null || groupadd --system $group" || return 1
      done &&
      in_root "$root" useradd --create-home --uid 1000 --shell /bin/bash "$KIOSK_USER" &&
      # The checkout, as git clone leaves it in the account's home on the Pi.
      mkdir -p "$root/home/$KIOSK_USER/tabletally" &&
      cp -a "$SRC/." "$root/home/$KIOSK_USER/tabletally/" &&
      in_root "$root" chown -R "$KIOSK_USER:$KIOSK_USER" "/home/$KIOSK_USER/tabletally" &&
      in_root "$root" python3 -c 'import platform, sys; print(platform.machine(), sys.version)'
  }

  # --runtime onnx: under emulation each runtime takes longer than the installer's limit for timing it
  # (3 minutes), so the runtime step below times them with that limit lifted. SYSTEMD_OFFLINE: systemd is not
  # running in the root; systemctl enables the unit offline and skips daemon-reload, as in any chroot.
  do_install() {
    in_root "$root" env TABLETALLY_PI_CHECK=1 SYSTEMD_OFFLINE=1 bash "/home/$KIOSK_USER/tabletally/deploy/install.sh" \
      --force --user "$KIOSK_USER" --session kms --display dsi7 --no-start --runtime onnx &&
      grep -q "^install.sh: system: .*the $release lock" "$dir/install.log"
  }

  do_detect() {
    mkdir -p "$root/tmp/pi-check-photos" &&
      cp "$SRC/vision/demo/"*.jpg "$root/tmp/pi-check-photos/" &&
      in_root "$root" runuser -u "$KIOSK_USER" -- sh -c \
        'cd /tmp/pi-check-photos && exec /usr/local/bin/tabletally detect --json "$@"' sh "${PHOTOS[@]}" \
        >"$dir/detect.json" &&
      "$HOST_PYTHON" "$TOOLS/pi_check.py" detect "$HOST_OUT/detect.json" "$dir/detect.json"
  }

  do_doctor() {
    local status=0
    in_root "$root" runuser -u "$KIOSK_USER" -- /usr/local/bin/tabletally doctor --json \
      >"$dir/doctor.json" 2>"$dir/doctor.err" || status=$?
    echo "tabletally doctor --json: exit status $status"
    "$HOST_PYTHON" "$TOOLS/pi_check.py" doctor "$dir/doctor.json"
  }

  # The installer's choice (vision.runtimes.choice: each runtime timed in a process of its own, then
  # choose_runtime), on one demo photo and without the 3-minute limit per runtime: emulation is slow.
  do_runtime() {
    in_root "$root" runuser -u "$KIOSK_USER" -- /opt/tabletally/venv/bin/python -c '
import json, sys
import vision.runtimes.choice as choice
choice.TIMING_PHOTOS, choice.TIMING_LIMIT_S = 1, 7200
times = choice.time_runtimes_apart(("onnx", "ncnn"))
runtime, why = choice.choose_runtime(times)
print(json.dumps(times))
print(f"# {why}")
print(f"TABLETALLY_RUNTIME={runtime}")
untimed = [name for name, ms in times.items() if not isinstance(ms, (int, float))]
sys.exit(f"not timed: {untimed}" if untimed else 0)'
  }

  do_kiosk() {
    # The service's settings (kiosk.env, then local.env), its account and folder; only the display
    # differs: offscreen here instead of the Pi's screen.
    cp "$TOOLS/kiosk_shot.py" "$root/tmp/kiosk_shot.py" &&
      in_root "$root" runuser -u "$KIOSK_USER" -- bash -c 'set -a; . /etc/tabletally/kiosk.env
        if [ -f /etc/tabletally/local.env ]; then . /etc/tabletally/local.env; fi; set +a
        cd /var/lib/tabletally && exec /opt/tabletally/venv/bin/python /tmp/kiosk_shot.py /tmp/kiosk-home.png' &&
      cp "$root/tmp/kiosk-home.png" "$dir/kiosk-home.png" &&
      grep '^KIOSK ' "$dir/kiosk.log" | tail -n 1 >"$dir/kiosk.json" &&
      grep '^KIOSK ' "$HOST_OUT/kiosk.log" | tail -n 1 >"$HOST_OUT/kiosk.json" &&
      "$HOST_PYTHON" "$TOOLS/pi_check.py" kiosk "$HOST_OUT/kiosk.json" "$dir/kiosk.json"
  }

  do_unit() {
    local unit=/etc/systemd/system/tabletally-kiosk.service desktop=/tmp/desktop/tabletally-kiosk.service
    in_root "$root" systemctl --version | head -n 1 &&
      in_root "$root" systemd-analyze verify "$unit" &&
      in_root "$root" systemd-analyze security --offline=yes --no-pager "$unit" >"$dir/security.txt" &&
      "$HOST_PYTHON" "$TOOLS/pi_check.py" security "$dir/security.txt" "$SECURITY_LIMIT" &&
      # The desktop session's unit, rendered as install.sh --session desktop renders it.
      mkdir -p "$root/tmp/desktop" &&
      in_root "$root" python3 "/home/$KIOSK_USER/tabletally/deploy/render.py" --out "$desktop" unit \
        --user "$KIOSK_USER" --uid 1000 --venv /opt/tabletally/venv --state-dir /var/lib/tabletally \
        --env-file /etc/tabletally/kiosk.env --session desktop --display hdmi --rotation 0 --touch mtdev &&
      in_root "$root" systemd-analyze verify "$desktop" &&
      in_root "$root" systemd-analyze security --offline=yes --no-pager "$desktop" >"$dir/security-desktop.txt" &&
      "$HOST_PYTHON" "$TOOLS/pi_check.py" security "$dir/security-desktop.txt" "$SECURITY_LIMIT"
  }

  step root do_root
  step install do_install
  step unit do_unit
  step kiosk do_kiosk
  step detect do_detect
  step doctor do_doctor
  step runtime do_runtime

  summary=$(IFS=,; printf '%s' "${times[*]}" | sed 's/,/, /g')
  if [ -z "$failure" ]; then
    runtime=$(sed -n 's/^TABLETALLY_RUNTIME=//p' "$dir/runtime.log" | tail -n 1)
    score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p' "$dir/security.txt" | tail -n 1)
    score_desktop=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p' "$dir/security-desktop.txt" | tail -n 1)
    systemd=$(sed -n 's/^systemd \([0-9]*\).*/\1/p' "$dir/unit.log" | head -n 1)
    photos="${#PHOTOS[@]} of $(find "$SRC/vision/demo" -maxdepth 1 -name '*.jpg' | wc -l) demo photos read alike"
    left_out=$(sed -n 's/^install.sh: pi-check: left out (Raspberry Pi archive, not reachable here): //p' "$dir/install.log")
    echo "pi-check $release: ok ($summary; $photos; runtime chosen under emulation: $runtime; unit exposure $score console, $score_desktop desktop (systemd $systemd); left out: ${left_out:-nothing})" |
      tee "$dir/result.txt"
  else
    failed=1
    echo "pi-check $release: FAILED at $failure ($summary)" | tee "$dir/result.txt"
  fi
done
exit "$failed"
}
