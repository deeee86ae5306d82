"""Configuration: pydantic schema and the shipped TOML files (games, tables, broker)."""
