"""The tournament file: its model (`model.load_tournament`), sections, located errors and checks,
the data files it names, their rows, and the merge of them kept on disk."""
