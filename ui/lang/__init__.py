"""The translations, one file a language: en.py and zh.py, each key -> text with the same str.format fields."""
