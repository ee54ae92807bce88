"""The phone page's words. The page has no text of its own: the server puts these into it, translated with
:func:`ui.i18n._` when the page is requested, so the catalogs in ui/locale translate the phones too."""

from __future__ import annotations

from ui.i18n import N_, _

LABELS: dict[str, str] = {
    "title": N_("TableTally scores"),
    "connecting": N_("Connecting to the kiosk..."),
    "live": N_("Live"),
    "reconnecting": N_("Kiosk not reachable. Trying again..."),
    "no_game": N_("No game yet tonight."),
    "player": N_("Player"),
    "team": N_("Team"),
    "total": N_("Total"),
    "to_go": N_("To go"),
    "out": N_("OUT"),
    "deals": N_("deals"),
    "starts": N_("starts"),
    "out_above": N_("Out above"),
    "last_round": N_("Last round"),
    "last_deal": N_("Last deal"),
    "hand": N_("Hand"),
    "points": N_("Points"),
    "called": N_("called"),
    "cards": N_("Cards"),
    "sweeps": N_("Sweeps"),
    "baazis": N_("Baazis"),
    "lead": N_("Lead"),
    "chart": N_("Totals by round"),
    "chart_seep": N_("Lead by deal"),
    "round": N_("Round"),
    "deal": N_("Deal"),
    "tonight": N_("Tonight"),
    "standings": N_("Standings"),
    "story": N_("The night's story"),
    "played": N_("Played"),
    "won": N_("Won"),
    "playing": N_("playing"),
    "finished": N_("finished"),
    "stopped": N_("stopped"),
    "winner": N_("Winner"),
    "jhyap": N_("Jhyap"),
    "seep": N_("Seep"),
    "read_only": N_("Read only: scores are entered on the kiosk."),
    "needs_js": N_("This page needs JavaScript to show the scores."),
}


def translated() -> dict[str, str]:
    """Every label in the kiosk's language now."""
    return {key: _(text) for key, text in LABELS.items()}
