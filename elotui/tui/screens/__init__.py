"""The TUI's panes (leaderboard, pairs, diagnostics) and modal screens (help, raw reply)."""
