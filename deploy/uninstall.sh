#!/usr/bin/env bash
# Removes TableTally from this Raspberry Pi: stops and removes the kiosk service, the venv in
# /opt/tabletally, the `tabletally` command, the settings in /etc/tabletally and the consoleblank=0 the
# installer added. The games (/var/lib/tabletally) are KEPT unless --purge is given.
# Debian packages stay (other programs may use them) and so does the account's group membership.
#
#   sudo deploy/uninstall.sh            # remove the program, keep the games
#   sudo deploy/uninstall.sh --purge    # remove the games too
#   deploy/uninstall.sh --dry-run       # the plan, changing nothing
set -euo pipefail

PROG=uninstall.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=deploy/lib.sh
. "$HERE/lib.sh"

usage() {
  cat <<EOF
Usage: sudo deploy/uninstall.sh [--purge] [--dry-run]

  --purge     also delete the games, scan photos and backups in /var/lib/tabletally
  --dry-run   print what would be done; change nothing
  -h, --help  this text
EOF
}

PURGE=0
PREFIX=/opt/tabletally
STATE_DIR=/var/lib/tabletally
CACHE_DIR=/var/cache/tabletally
ETC_DIR=/etc/tabletally
while [ $# -gt 0 ]; do
  case $1 in
    --purge) PURGE=1; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done

if ! dry && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  die "run me with sudo (sudo deploy/uninstall.sh), or add --dry-run to only see the plan" 4
fi

unit_file=$(path "/etc/systemd/system/$SERVICE")
data_dir=""
if [ -f "$(path "$ETC_DIR/kiosk.env")" ]; then
  data_dir=$(sed -n 's/^TABLETALLY_DATA_DIR=//p' "$(path "$ETC_DIR/kiosk.env")" | tail -n 1)
fi
data_dir=${data_dir:-$STATE_DIR/data}

step "Stopping the kiosk"
if [ -f "$unit_file" ]; then
  run systemctl disable --now "$SERVICE"
else
  log "no $SERVICE installed"
fi

step "Removing the program"
remove_path "$unit_file"
remove_path "$unit_file.d/tabletally-share.conf" # scores on phones (deploy/share.sh)
if [ -d "$unit_file.d" ] && [ -z "$(ls -A "$unit_file.d")" ]; then remove_path "$unit_file.d"; fi
run systemctl daemon-reload
link=$(path /usr/local/bin/tabletally)
if [ -L "$link" ] || [ ! -e "$link" ]; then
  remove_path "$link"
else
  warn "$link is not the installer's link; leaving it"
fi
remove_path "$(path "$PREFIX")"
remove_path "$(path "$CACHE_DIR")"
remove_path "$(path "$ETC_DIR/kiosk.env")"

step "Undoing the boot settings"
for cmdline in "$(path /boot/firmware/cmdline.txt)" "$(path /boot/cmdline.txt)"; do
  [ -f "$cmdline.tabletally-orig" ] || continue
  # Take out only what the installer added; keep any other change made since.
  if grep -Eq '(^| )consoleblank=' "$cmdline.tabletally-orig"; then
    log "consoleblank was already set before TableTally; leaving $cmdline as it is"
  else
    work=$(mktemp)
    sed -E 's/ consoleblank=0( |$)/\1/' "$cmdline" >"$work"
    write_file "$cmdline" 0644 root:root "$work"
    rm -f "$work"
  fi
  remove_path "$cmdline.tabletally-orig"
done
log "screen blanking in the desktop (raspi-config) and desktop autologin are left as they are"

step "Your games"
if [ "$PURGE" = 1 ]; then
  remove_path "$(path "$STATE_DIR")"
  remove_path "$(path "$ETC_DIR")"
  [ "$data_dir" = "$STATE_DIR/data" ] || remove_path "$(path "$data_dir")"
else
  if [ -d "$(path "$STATE_DIR")" ]; then
    log "kept: $STATE_DIR (the games, scan photos and backups; remove with --purge)"
  fi
  if [ -f "$(path "$ETC_DIR/local.env")" ]; then
    log "kept: $ETC_DIR/local.env (your own settings)"
  else
    remove_path "$(path "$ETC_DIR")"
  fi
fi

echo
if dry; then
  log "dry run finished: nothing was changed"
else
  log "TableTally is removed. Debian packages (python3-picamera2, fonts, ...) were left installed."
fi
