"""Tonight's scoreboard on the players' phones: a read-only web page served by the kiosk itself.

Off until switched on (Settings, or ``tabletally kiosk --share``). :mod:`ui.share.server` is the server the
kiosk holds, :mod:`ui.share.snapshot` what the phones see (built from :mod:`ui.logic.boards`),
:mod:`ui.share.static` the page, :mod:`ui.share.qr` the address as a QR code, :mod:`ui.share.net` the
machine's home-network addresses, :mod:`ui.devtools.loadtest` the load test.
"""

DEFAULT_PORT = 8088
"""The port phones open when none is chosen (``tabletally kiosk --share-port`` or the record's share_port)."""


EVERY_ADDRESS = "::"
"""Where the kiosk listens unless told otherwise: every IPv6 and IPv4 address of the machine (one dual-stack
socket), or every IPv4 address where the system has no IPv6. A phone that reaches the kiosk by its name
(``tabletally.local``) may be given its IPv6 address first."""


class ShareError(RuntimeError):
    """Sharing cannot start (the message says why, in words for the Settings screen)."""
