"""User text (request names, file contents) shown as text, never as markdown or HTML."""
import html
import string

_ESCAPES = {c: "\\" + c for c in string.punctuation}


def md_escape(text: str) -> str:
    """Backslash-escape every ASCII punctuation mark (CommonMark allows it), so `**x**`, `[a](b)`, `:red[x]`
    and `<img ...>` from a user all show as typed."""
    return "".join(_ESCAPES.get(c, c) for c in str(text)).replace("\n", " ")


def plotly_text(text: str) -> str:
    """Plotly draws labels and hover text from a small HTML subset (<b>, <a href>, ...): escape user text."""
    return html.escape(str(text), quote=False)
