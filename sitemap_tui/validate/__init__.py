"""Validation: the rule registry (``rules``) and the streaming checker (``checker``).

``validate.rules`` holds every rule of the catalogue once; ``validate.checker.Checker`` runs the
per-entry, per-child, per-file and robots.txt rules while a file streams through the parser.
Cross-file, XSD and deep checks live in their own modules.
"""

from sitemap_tui.validate.rules import RULES, Rule, describe, make_issue, select_rules

__all__ = ["RULES", "Rule", "describe", "make_issue", "select_rules"]
