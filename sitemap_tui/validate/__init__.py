"""Validation: the rule registry (``registry``), the rule families (``rules``) and the
streaming checker (``checker``).

``validate.registry`` holds every rule once, collected from the families in ``validate.rules``;
``validate.checker.Checker`` runs the per-entry, per-child, per-file and robots.txt rules while
a file streams through the parser.
Cross-file, XSD and deep checks live in their own modules.
"""

from sitemap_tui.validate.registry import RULES, Rule, describe, make_issue, select_rules

__all__ = ["RULES", "Rule", "describe", "make_issue", "select_rules"]
