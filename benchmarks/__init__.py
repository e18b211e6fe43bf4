"""Benchmarks: each prints a table and compares against the raw parts it is built on."""
