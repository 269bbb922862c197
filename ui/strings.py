"""Every text the app shows, from the translations (ui/lang/en.py, ui/lang/zh.py): key -> {"en": ..., "zh": ...}.
A key missing from one language is an error here, at import, not when its page is drawn."""
from .lang.en import TEXTS as EN
from .lang.zh import TEXTS as ZH

LANGUAGE_TEXTS = {"en": EN, "zh": ZH}
if EN.keys() != ZH.keys():
    raise KeyError(f"texts in one language only: {sorted(EN.keys() ^ ZH.keys())}")
STRINGS = {key: {"en": EN[key], "zh": ZH[key]} for key in EN}
