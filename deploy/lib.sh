# shellcheck shell=bash
# Helpers shared by deploy/install.sh, update.sh and uninstall.sh. Sourced, never run.
#
# Every change to the machine goes through `run`, `write_file`, `ensure_dir`, `ensure_link` or
# `remove_path`, so `--dry-run` can print the plan ("would run: ...", "would write: ...") and change
# nothing. TABLETALLY_TEST_ROOT (tests only) puts every file the scripts read or write under another
# directory; commands still run through PATH, where the tests put stand-ins.

ROOT=${TABLETALLY_TEST_ROOT:-}
DRY_RUN=${DRY_RUN:-0}
PROG=${PROG:-tabletally}

log() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
step() { printf '\n== %s\n' "$*"; }

# die MESSAGE [STATUS]: print the message and stop (status 1 unless given).
die() {
  printf '%s: error: %s\n' "$PROG" "$1" >&2
  exit "${2:-1}"
}

dry() { [ "$DRY_RUN" = 1 ]; }

# path /etc/foo -> the same path under the test root (or unchanged).
path() { printf '%s%s' "$ROOT" "$1"; }

# Print a command the way a shell would read it back.
quoted() {
  local out="" arg
  for arg in "$@"; do
    out+=" $(printf '%q' "$arg")"
  done
  printf '%s' "${out# }"
}

# run CMD ARGS...: run a command that changes the machine (or say that it would).
run() {
  if dry; then
    printf 'would run: %s\n' "$(quoted "$@")"
  else
    printf '+ %s\n' "$(quoted "$@")"
    "$@"
  fi
}

# set_owner OWNER PATH: chown, except in a test root when not running as root (nobody to give it to).
set_owner() {
  if [ -n "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
    return 0
  fi
  chown "$1" "$2"
}

# write_file DEST MODE OWNER SOURCE: install SOURCE's content at DEST (a real path, not under ROOT) unless
# DEST already holds exactly that. OWNER is user or user:group.
write_file() {
  local dest=$1 mode=$2 owner=$3 src=$4
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    printf 'unchanged: %s\n' "$dest"
    return 0
  fi
  if dry; then
    printf 'would write: %s (mode %s, owner %s)\n' "$dest" "$mode" "$owner"
    sed 's/^/    | /' "$src"
    return 0
  fi
  mkdir -p "$(dirname "$dest")"
  local tmp
  tmp=$(mktemp "$dest.XXXXXX")
  cat "$src" >"$tmp"
  chmod "$mode" "$tmp"
  set_owner "$owner" "$tmp"
  mv -f "$tmp" "$dest"
  printf 'wrote: %s\n' "$dest"
}

# ensure_dir DIR MODE OWNER: create DIR (a real path) if missing; fix its owner and mode.
ensure_dir() {
  local dir=$1 mode=$2 owner=$3
  local want_owner=${owner%%:*}
  if [ -n "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then want_owner=$(id -un); fi
  if [ -d "$dir" ] && [ "$(stat -c '%a %U' "$dir")" = "${mode#0} $want_owner" ]; then
    printf 'unchanged: %s/\n' "$dir"
    return 0
  fi
  if dry; then
    printf 'would create: %s/ (mode %s, owner %s)\n' "$dir" "$mode" "$owner"
    return 0
  fi
  mkdir -p "$dir"
  chmod "$mode" "$dir"
  set_owner "$owner" "$dir"
  printf 'directory: %s/\n' "$dir"
}

# ensure_link LINK TARGET: make LINK a symbolic link to TARGET.
ensure_link() {
  local link=$1 target=$2
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then
    printf 'unchanged: %s -> %s\n' "$link" "$target"
    return 0
  fi
  if dry; then
    printf 'would link: %s -> %s\n' "$link" "$target"
    return 0
  fi
  mkdir -p "$(dirname "$link")"
  ln -sfn "$target" "$link"
  printf 'linked: %s -> %s\n' "$link" "$target"
}

# remove_path PATH: delete a file, link or directory tree if it exists.
remove_path() {
  local target=$1
  if [ ! -e "$target" ] && [ ! -L "$target" ]; then
    printf 'absent: %s\n' "$target"
    return 0
  fi
  if dry; then
    printf 'would remove: %s\n' "$target"
    return 0
  fi
  rm -rf -- "$target"
  printf 'removed: %s\n' "$target"
}

# The board's model string ("Raspberry Pi 5 Model B Rev 1.0"), or nothing when this is not a Pi.
pi_model() {
  local file
  file=$(path /proc/device-tree/model)
  if [ -r "$file" ]; then
    tr -d '\0' <"$file"
  fi
}

# is_supported_pi MODEL: true for the boards TableTally is built for.
is_supported_pi() {
  case $1 in
    # "Raspberry Pi 4"* also matches the Pi 400, "Raspberry Pi 5"* the Pi 500.
    "Raspberry Pi 5"* | "Raspberry Pi 4"* | "Raspberry Pi Compute Module 4"* | "Raspberry Pi Compute Module 5"*)
      return 0
      ;;
    *) return 1 ;;
  esac
}

# require_pi FORCE: stop with a clear message unless this is a Raspberry Pi (or FORCE is 1).
require_pi() {
  local force=$1 model
  model=$(pi_model)
  if [ -z "$model" ]; then
    if [ "$force" = 1 ]; then
      warn "this is not a Raspberry Pi; going on because of --force (for testing: the camera, screen and boot settings will not work here)"
      return 0
    fi
    die "this is not a Raspberry Pi (no Raspberry Pi model in /proc/device-tree/model).
  This script sets up a Raspberry Pi 5 or 4 running Raspberry Pi OS (64-bit) as a TableTally kiosk.
  On a laptop or desktop computer use 'make run' instead. To run it here anyway (testing), add --force." 3
  fi
  if is_supported_pi "$model"; then
    log "board: $model"
  else
    warn "board: $model. TableTally is made for the Raspberry Pi 5 and 4; it may be too slow on this one."
  fi
}

# The numeric id of an account, or nothing if there is none.
user_uid() { { getent passwd "$1" || true; } | cut -d: -f3; }
# The home directory of an account.
user_home() { { getent passwd "$1" || true; } | cut -d: -f6; }

# The systemd unit the scripts install, update and remove.
export SERVICE=tabletally-kiosk.service

# lock_header LOCK KEY: the value of a lock's "# KEY: value" line (deploy/lock.py writes release, python).
lock_header() { sed -n "s/^# $2: \([^ ]*\)\$/\1/p" "$1" | head -n 1; }

# The releases there is a lock for, in words: "Raspberry Pi OS (64-bit) Bookworm (Python 3.11) or ...".
supported_releases() {
  local lock release words=()
  for lock in "$HERE"/requirements-pi-*.txt; do
    [ -f "$lock" ] || continue
    release=$(lock_header "$lock" release)
    [ -n "$release" ] || continue
    words+=("${release^} (Python $(lock_header "$lock" python))")
  done
  local IFS=/
  printf 'Raspberry Pi OS (64-bit) %s' "$(printf '%s' "${words[*]}" | sed 's#/# or #g')"
}

# The Raspberry Pi OS release and lock an install recorded in PREFIX/release ("bookworm 3.11"), or nothing.
installed_release() { cat "$(path /opt/tabletally/release)" 2>/dev/null || true; }
