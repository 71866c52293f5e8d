"""Test support: a tiny random model and a local OpenAI-compatible server."""
