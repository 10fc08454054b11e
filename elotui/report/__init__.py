"""`elotui report`: the tournament as one self-contained HTML page (`document` gathers the data, `page` writes the
file) and its charts as PNG and SVG files (`plots`, with matplotlib). No Textual here."""
