#!/usr/bin/env bash
# Updates an installed TableTally kiosk: backs up the score database, pulls the new version into this
# checkout (git pull --ff-only, as the checkout's owner), reinstalls with the settings chosen at install
# time (read back from /etc/tabletally/kiosk.env and the service's User=), and restarts the kiosk.
# The data directory (/var/lib/tabletally) is never touched apart from the backup copy.
#
#   sudo deploy/update.sh             # pull, reinstall, restart
#   sudo deploy/update.sh --no-pull   # reinstall this checkout as it is (after a manual git checkout)
#   deploy/update.sh --dry-run        # the plan, changing nothing
set -euo pipefail

# git pull may rewrite this very file while it runs, and bash reads a script as it goes: the braces make
# bash read all of it before running any of it.
{
PROG=update.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
# shellcheck source=deploy/lib.sh
. "$HERE/lib.sh"

usage() {
  cat <<EOF
Usage: sudo deploy/update.sh [options]

Pulls the newest TableTally into $REPO and reinstalls it; your games are kept.

Options:
  --no-pull     do not run git pull; reinstall the checkout as it is
  --keep N      database backups to keep in the data directory's backups/ folder (default 5)
  --dry-run     print what would be done; change nothing
  --force       passed on to install.sh (testing on a machine that is not a Pi)
  -h, --help    this text
EOF
}

PULL=1
KEEP=5
FORCE=0
ETC_DIR=/etc/tabletally
while [ $# -gt 0 ]; do
  case $1 in
    --no-pull) PULL=0; shift ;;
    --keep)
      if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then die "--keep needs a whole number of at least 1" 2; fi
      KEEP=$2; shift 2 ;;
    --dry-run) DRY_RUN=1; shift ;;
    --force) FORCE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done

if ! dry && [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  die "run me with sudo (sudo deploy/update.sh), or add --dry-run to only see the plan" 4
fi

# --- what was installed -------------------------------------------------------------------------------

step "Reading the installed settings"
env_file=$(path "$ETC_DIR/kiosk.env")
unit_file=$(path "/etc/systemd/system/$SERVICE")
if [ ! -f "$env_file" ] || [ ! -f "$unit_file" ]; then
  die "TableTally is not installed here ($ETC_DIR/kiosk.env or the $SERVICE unit is missing): run sudo deploy/install.sh first" 3
fi

setting() { sed -n "s/^$1=//p" "$env_file" | tail -n 1; }
KIOSK_USER=$(sed -n 's/^User=//p' "$unit_file" | tail -n 1)
SESSION=$(setting TABLETALLY_SESSION)
DISPLAY_KIND=$(setting TABLETALLY_DISPLAY)
ROTATION=$(setting TABLETALLY_ROTATION)
TOUCH=$(setting TABLETALLY_TOUCH)
DATA_DIR=$(setting TABLETALLY_DATA_DIR)
if [ -z "$KIOSK_USER" ] || [ -z "$SESSION" ] || [ -z "$DISPLAY_KIND" ] || [ -z "$DATA_DIR" ]; then
  die "$ETC_DIR/kiosk.env or the unit lacks the install settings; reinstall with sudo deploy/install.sh" 3
fi
log "user $KIOSK_USER, session $SESSION, display $DISPLAY_KIND, rotation ${ROTATION:-default}, touch ${TOUCH:-mtdev}"
log "data (kept): $DATA_DIR"

# The lock follows the release: after an upgrade of Raspberry Pi OS (Bookworm -> Trixie) install.sh takes
# the new release's lock and makes the venv again for its Python; here it is said before anything changes.
now_release=unknown
if [ -r "$(path /etc/os-release)" ]; then
  # shellcheck disable=SC1090,SC1091  # os-release is shell syntax by definition
  now_release=$(. "$(path /etc/os-release)" && printf '%s' "${VERSION_CODENAME:-unknown}")
fi
read -r was_release was_python <<<"$(installed_release) "
if [ -z "$was_release" ]; then
  log "release: $now_release (the installed lock is not recorded: installed before TableTally recorded it)"
elif [ "$was_release" != "$now_release" ]; then
  log "release: Raspberry Pi OS is now ${now_release^} (installed on ${was_release^}, Python $was_python):" \
    "switching to the ${now_release} lock, deploy/requirements-pi-$now_release.txt"
  if [ ! -f "$HERE/requirements-pi-$now_release.txt" ]; then
    warn "this checkout has no lock for ${now_release^} yet; install.sh refuses the release unless the pull brings one"
  fi
else
  log "release: ${now_release^}, as installed (deploy/requirements-pi-$now_release.txt)"
fi

# --- backup -------------------------------------------------------------------------------------------

step "Backing up the score database"
db=$(path "$DATA_DIR/tabletally.sqlite3")
if [ -f "$db" ]; then
  backups=$(path "$DATA_DIR/backups")
  stamp=$(date +%Y%m%d-%H%M%S)
  ensure_dir "$backups" 0750 "$KIOSK_USER"
  # sqlite3 .backup copies a consistent snapshot even while the kiosk writes (WAL).
  run sqlite3 "$db" ".backup '$backups/tabletally-$stamp.sqlite3'"
  if ! dry; then
    set_owner "$KIOSK_USER" "$backups/tabletally-$stamp.sqlite3"
    old=$(find "$backups" -maxdepth 1 -name 'tabletally-*.sqlite3' -printf '%f\n' | sort -r | tail -n +"$((KEEP + 1))")
    for name in $old; do
      remove_path "$backups/$name"
    done
  fi
else
  log "no database yet ($DATA_DIR/tabletally.sqlite3): nothing to back up"
fi

# --- pull ---------------------------------------------------------------------------------------------

if [ "$PULL" = 1 ]; then
  step "Pulling the new version into $REPO"
  [ -d "$REPO/.git" ] || die "$REPO is not a git checkout: update it by hand, then run update.sh --no-pull" 3
  owner=$(stat -c %U "$REPO")
  as_owner=()
  [ "$(id -un)" = "$owner" ] || as_owner=(runuser -u "$owner" --)
  before=$("${as_owner[@]}" git -C "$REPO" rev-parse --short HEAD)
  if [ -n "$("${as_owner[@]}" git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
    die "$REPO has local changes (git status): commit or undo them, or run update.sh --no-pull" 3
  fi
  run "${as_owner[@]}" git -C "$REPO" pull --ff-only
  after=$("${as_owner[@]}" git -C "$REPO" rev-parse --short HEAD)
  if [ "$before" = "$after" ]; then
    log "already the newest version ($after); reinstalling anyway"
  else
    log "updated $before -> $after"
  fi
else
  log "not pulling (--no-pull): reinstalling $REPO as it is"
fi

# --- reinstall and restart ----------------------------------------------------------------------------

step "Reinstalling"
args=(--user "$KIOSK_USER" --session "$SESSION" --display "$DISPLAY_KIND" --no-start)
[ -n "$ROTATION" ] && args+=(--rotation "$ROTATION")
[ -n "$TOUCH" ] && args+=(--touch "$TOUCH")
dry && args+=(--dry-run)
[ "$FORCE" = 1 ] && args+=(--force)
# The freshly pulled install.sh, so an update can fix the installer too.
"$HERE/install.sh" "${args[@]}"

step "Restarting the kiosk"
run systemctl restart "$SERVICE"
if dry; then
  log "dry run finished: nothing was changed"
else
  log "updated; your games are in $DATA_DIR (backup in $DATA_DIR/backups)"
fi
exit 0
}
