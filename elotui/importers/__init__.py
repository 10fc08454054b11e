"""Importers: judgments other tools wrote (MT-bench, Chatbot Arena, ...) as an elotui tournament folder
(`elotui import FORMAT FILES... -o DIR`; see elotui.importers.common for what is written)."""

FORMATS = ("mt-bench", "arena", "arena-hard", "alpaca-eval")
