"""Adapter tests: unit mappings, the laws of DESIGN §11, the recorded corpus, cassettes and golden files."""
