"""Bundled demo site and a tiny local HTTP server that serves it."""
