"""The server metadata store: PostgreSQL shared by many processes, BM25 postings in SQL."""
