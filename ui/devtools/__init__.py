"""Development tools of the kiosk: the scripted demo and its screenshots, the phones' page in headless
Chromium, the load test. Not in the wheel the Pi installs (pyproject.toml excludes ui.devtools)."""
