"""The explorer's audit (issue 22 §4): "Audit URLs of this node…" (u) fetches the URLs under the
highlighted node and keeps each one's status and indexability, "Crawler access" judges every URL
against the robots.txt files read (also run by itself after an expand-all: robots.txt only,
nothing fetched). Both run in the engine (session/host_audit.py), off the UI; the header shows
their progress, x cancels them, and the Overview shows what they found (widgets/overview_audit.py).

An audit keeps every result as it arrives: cancelled, then run again, it fetches only the URLs
without a result, as ``sitemap-tui audit`` goes on in a stopped exploration.
"""

from __future__ import annotations

from rich.text import Text
from textual import on

from sitemap_tui.engine.access import DEFAULT_AGENTS
from sitemap_tui.engine.audit import AuditOptions
from sitemap_tui.engine.model import NodeState
from sitemap_tui.engine.sanitize import display
from sitemap_tui.tui.app_compare import CompareLink
from sitemap_tui.tui.messages import AuditNote, AuditProgress, CommandDone, EngineError, Outdated
from sitemap_tui.tui.palette import PaletteCommand
from sitemap_tui.tui.screens.confirm import ConfirmScreen
from sitemap_tui.tui.widgets.sitemap_tree import short_name
from sitemap_tui.words import plural


class AuditLink(CompareLink):
    """The audit and crawler-access commands and what the engine answers to them."""

    def audit_commands(self, name: str) -> list[PaletteCommand]:
        """The palette's entries for the highlighted node ``name``."""
        return [
            PaletteCommand("Audit URLs of this node…", f"Fetch the URLs under {name}: status, redirects, "
                           "noindex, canonical, indexability (resumable; x cancels)", "audit"),
            PaletteCommand("Crawler access", "Which crawlers (Googlebot, GPTBot, ClaudeBot, …) robots.txt lets "
                           "fetch each URL: nothing is fetched (Overview)", "crawler_access"),
        ]

    # -- the audit -------------------------------------------------------------------------------
    def action_audit(self) -> None:
        node = self._cursor_node()
        if node is None or not self._require_engine("Audit"):
            return
        if self.jobs.audit is not None:
            self.notify("An audit is already running (x cancels it).", markup=False)
            return
        sel = self.make_selection(node.id)
        ids = [i for i in (sel.file_ids if sel else [node.id])
               if (n := self.tree.model.nodes.get(i)) is not None and n.state == NodeState.DONE and n.stats.url_count]
        if not ids:
            self.notify("No URLs fetched under this node yet: expand it first (e), then audit it (u).", markup=False)
            return
        urls = sum(self.tree.model.nodes[i].stats.url_count for i in ids)
        whole = self.tree.model.is_only_root(node.id)  # (a single file's too: its audit is the whole)
        rate = self.options.page_rate if self.options is not None else AuditOptions().rate
        pace = f"at most {rate:g} requests/s per host" if rate > 0 else "no rate limit (--rate 0)"
        body = Text()
        # the header then counts URLs, each once: the listings are said as such here (found
        # from outside: "Fetch the 436 listed URLs", then "auditing 12/420 URLs")
        body.append(f"Fetch the URLs of {plural(len(ids), 'sitemap')} under ")
        body.append(display(short_name(node), 120), style="bold")
        body.append(f" ({plural(urls, 'listing')}: a URL listed twice is one request)?\n\n"
                    f"{pace[:1].upper()}{pace[1:]}, robots.txt obeyed, only the sitemaps' hosts; "
                    "the page's head is read for noindex and canonical. Results are kept as they arrive: "
                    "x stops, and u again goes on with the URLs not done.")

        def answer(ok: bool | None) -> None:
            if ok and self.bridge is not None and self.bridge.audit(ids, whole=whole):
                self.jobs.audit = (0, 0)
                self.update_header()

        self.push_screen(ConfirmScreen("Audit URLs", body, yes="Audit"), answer)

    @on(AuditProgress)
    def _audit_progress(self, message: AuditProgress) -> None:
        if self.jobs.audit is not None:
            self.jobs.audit = (message.done, message.total)
            self._audit_results_changed()

    @on(AuditNote)
    def _audit_note(self, message: AuditNote) -> None:
        self.notify(display(message.text, 500), title=message.title, severity="warning", markup=False)

    def _audit_results_changed(self) -> None:
        """New results in the store: the Overview of the selection reads them again."""
        self._events_seen = True
        if self._selected is not None:
            self._dirty.add(self._selected)

    # -- crawler access ------------------------------------------------------------------------
    def action_crawler_access(self) -> None:
        if not self._require_engine("Crawler access", fetches=False):
            return
        if self.jobs.access:
            self.notify("Crawler access is already being computed.", markup=False)
            return
        self._start_access(auto=False)

    def _start_access(self, *, auto: bool) -> None:
        if self.bridge is None or not self.bridge.access(auto=auto):
            return
        self.jobs.access = True
        if not auto:
            self.notify(f"Crawler access: judging every URL against robots.txt for {len(DEFAULT_AGENTS)} crawlers "
                        "(nothing is fetched; x cancels).", markup=False)
        self.update_header()

    def _expand_all_done(self, files: int) -> None:
        super()._expand_all_done(files)
        if not self.jobs.access:
            self._start_access(auto=True)  # cheap (robots.txt only): the Overview's matrix

    @on(Outdated)
    def _access_outdated(self, message: Outdated) -> None:
        # the file's new rows are not judged yet: the Overview's matrix would leave them out
        if "access" in message.parts and not self.jobs.access:
            self._start_access(auto=True)

    # -- the engine's answers ------------------------------------------------------------------
    @on(CommandDone)
    def _audit_done(self, message: CommandDone) -> None:
        if message.what == "audit":
            done = self.jobs.audit[0] if self.jobs.audit else 0
            self.jobs.audit = None
            self.jobs.audits_ended += 1
            if message.result == "cancelled":
                self.notify(f"Audit cancelled: {plural(done, 'result')} kept; u on the node goes on with the rest.",
                            markup=False)
            else:
                fetched = message.result if isinstance(message.result, int) else 0
                self.notify(f"Audit done: {plural(fetched, 'URL')} fetched (Overview, 1: Indexability).", markup=False)
        elif message.what == "access":
            self.jobs.access = False
            if message.result == "cancelled":
                self.notify("Crawler access cancelled; what was judged is kept.", markup=False)
            else:
                n = message.result if isinstance(message.result, int) else 0
                if n:
                    # (the URLs judged: those whose robots.txt was read; the Overview counts every
                    # listed URL, the unknown apart: "33 listed" here read as a second count of 34)
                    self.notify(f"Crawler access computed: {plural(n, 'URL')} judged × {len(DEFAULT_AGENTS)} "
                                "crawlers, from robots.txt (Overview, 1).", markup=False)
                else:  # (a local folder): "computed … from robots.txt" would claim what was not
                    self.notify("Crawler access: no robots.txt was read for the listed URLs' origins, "
                                "so none could be judged (Overview, 1).", markup=False)
        else:
            return
        self._audit_results_changed()
        self.update_header()

    @on(EngineError)
    def _audit_failed(self, message: EngineError) -> None:
        if message.what in ("audit", "engine", "store"):
            self.jobs.audit = None
        if message.what in ("access", "engine", "store"):
            self.jobs.access = False
