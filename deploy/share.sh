#!/usr/bin/env bash
# Lets the kiosk's service reach the home network, so players' phones can open tonight's scores
# ("Scores on phones" in the kiosk's Settings). The installed unit allows no IP traffic but loopback;
# `on` adds the drop-in deploy/tabletally-share.conf (private ranges only: 10/8, 172.16/12,
# 192.168/16, link-local, IPv6 ULA and link-local), `off` removes it. Either restarts a running kiosk
# so the change takes effect. Nothing is opened unless you run `on`.
#
#   sudo deploy/share.sh on        # allow phones on the home network
#   sudo deploy/share.sh off       # back to loopback only
#   deploy/share.sh status         # is it allowed? (no root needed)
#   deploy/share.sh on --dry-run   # the plan, changing nothing
set -euo pipefail

PROG=share.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=deploy/lib.sh
. "$HERE/lib.sh"

usage() {
  cat <<USAGE
Usage: sudo deploy/share.sh on|off|status [--dry-run] [--no-restart]

  on            let phones on the home network reach the kiosk's scores page
  off           remove that again (the kiosk then talks to nothing but itself)
  status        say which of the two is installed
  --no-restart  do not restart a running kiosk (the change then waits for the next start)
  --dry-run     print what would be done; change nothing
  -h, --help    this text
USAGE
}

ACTION=
RESTART=1
while [ $# -gt 0 ]; do
  case $1 in
    on | off | status) ACTION=$1; shift ;;
    --no-restart) RESTART=0; shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" 2 ;;
  esac
done
[ -n "$ACTION" ] || die "say on, off or status (see --help)" 2

DROP_IN_DIR=/etc/systemd/system/$SERVICE.d
DROP_IN=$DROP_IN_DIR/tabletally-share.conf
dest=$(path "$DROP_IN")

if [ "$ACTION" = status ]; then
  if [ -f "$dest" ]; then
    log "on: phones on the home network can reach the kiosk ($DROP_IN)"
  else
    log "off: the kiosk's service allows no network traffic but loopback (sudo deploy/share.sh on to change it)"
  fi
  exit 0
fi

if ! dry && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  die "run me with sudo (sudo deploy/share.sh $ACTION), or add --dry-run to only see the plan" 4
fi

if [ "$ACTION" = on ]; then
  step "Letting phones on the home network reach the kiosk"
  write_file "$dest" 0644 root:root "$HERE/tabletally-share.conf"
else
  step "Closing the kiosk to the network again"
  remove_path "$dest"
  dir=$(path "$DROP_IN_DIR")
  if [ -d "$dir" ] && [ -z "$(ls -A "$dir")" ]; then
    remove_path "$dir"
  fi
fi
run systemctl daemon-reload
if [ "$RESTART" = 1 ]; then
  # Only if it is running: a stopped kiosk stays stopped.
  run systemctl try-restart "$SERVICE"
fi
if [ "$ACTION" = on ]; then
  log "done. Switch \"Scores on phones\" on in the kiosk's Settings; 'tabletally doctor' shows the address phones use."
else
  log "done. Phones can no longer reach the kiosk."
fi
