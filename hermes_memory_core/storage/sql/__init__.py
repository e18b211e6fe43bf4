"""What both SQL dialects share: rows and queries, the keyword context, keyword shards."""
