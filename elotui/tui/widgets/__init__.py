"""Widgets of the elotui TUI."""
