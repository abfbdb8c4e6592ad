"""sitemap-tui: explore and validate a website's sitemaps."""

__version__ = "0.1.0"
USER_AGENT = f"sitemap-tui/{__version__}"
