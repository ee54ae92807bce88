"""The Kivy kiosk and the `tabletally` command line."""
