"""Development tools of vision: benchmarks, evaluations, the view store. Not in the wheel; nothing in
vision, ui or models imports them but the tests and other tools."""
