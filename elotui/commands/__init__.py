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
    "import",
)
# a command whose module is not named after it (`import` is a Python keyword)
MODULES = {"import": "import_judgments"}
