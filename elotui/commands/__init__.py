"""One module per CLI subcommand: `add_parser(subparsers)` and `run(args) -> exit code`."""

COMMANDS = (
    "init",
    "run",
    "watch",
    "runs",
    "validate",
    "export",
    "verdicts",
    "diagnose",
    "graph",
    "report",
    "serve",
)
