"""Textual front end of sitemap-tui."""
