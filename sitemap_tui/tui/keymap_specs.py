"""The app's default bindings as :class:`BindingSpec` rows, for checking the user's keymap.

The Textual side of :mod:`sitemap_tui.tui.keymap_check`: it reads the ``BINDINGS`` of each class
that has keys (the app, its screens, the focusable widgets) and hands them over as plain data."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding

from sitemap_tui.tui.keymap_check import BindingSpec
from sitemap_tui.tui.screens.confirm import ConfirmScreen, PathPrompt
from sitemap_tui.tui.screens.error import StoreErrorScreen
from sitemap_tui.tui.screens.export import ExportScreen
from sitemap_tui.tui.screens.help import HelpScreen
from sitemap_tui.tui.screens.recent import RecentScreen
from sitemap_tui.tui.widgets.issue_tree import IssueTree
from sitemap_tui.tui.widgets.issues_pane import IssuesPane
from sitemap_tui.tui.widgets.lastmod_chart import LastmodChart
from sitemap_tui.tui.widgets.sitemap_tree import SitemapTree
from sitemap_tui.tui.widgets.url_table.grid import UrlGrid

# each is a scope of its own: its keys are active together, so two of its actions cannot share one
SCOPES: tuple[type[Any], ...] = (
    SitemapTree, IssuesPane, IssueTree, UrlGrid, LastmodChart,
    ConfirmScreen, PathPrompt, StoreErrorScreen, ExportScreen, HelpScreen, RecentScreen,
)


def binding_specs(app_class: type[Any]) -> list[BindingSpec]:
    """Every binding of the app class and of :data:`SCOPES`, base classes' included."""
    specs: list[BindingSpec] = []
    for cls in (app_class, *SCOPES):
        scope = "app" if cls is app_class else cls.__name__
        for base in cls.__mro__:
            for binding in Binding.make_bindings(base.__dict__.get("BINDINGS", [])):
                keys = tuple(k.strip() for k in binding.key.split(",") if k.strip())
                specs.append(BindingSpec(binding.id, keys, binding.description or binding.action, scope))
    return specs
