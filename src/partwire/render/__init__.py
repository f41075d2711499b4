"""Readable renderings of a history: the plain-text transcript ``partwire show`` prints."""
