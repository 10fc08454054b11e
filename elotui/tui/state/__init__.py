"""The TUI's view models, without Textual: the live ranking, the pairs pane's query, following
another process's run."""
