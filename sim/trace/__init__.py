"""Request traces: the Trace itself with its validation and files (trace), synthetic traces (generate) and the
public traces' importers (importers)."""
