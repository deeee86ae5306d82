"""pytest settings for the whole tree: none beyond pyproject.toml's (this file marks the root)."""
