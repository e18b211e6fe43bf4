"""The embedded metadata store: SQLite in WAL mode with an FTS5 keyword index."""
