"""One module per CLI subcommand: `add_parser(subparsers)` and `run(args) -> exit code`."""

COMMANDS = ("init", "run", "watch", "runs", "validate", "export", "verdicts", "diagnose", "graph", "import")
# a command whose module is not named after it (`import` is a Python keyword)
MODULES = {"import": "import_judgments"}
# The commands whose body runs with the cyclic collector off (elotui.heap.collector_off): their own process keeps it
# off from its start (elotui.cli.entry).
ONE_SHOT_COMMANDS = ("validate", "export")
