"""Storage adapters: the table's journal on SQLite."""
