"""Subcommands of `tabletally`: each module has add_arguments(parser) and run(args) -> int."""
