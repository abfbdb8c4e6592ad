"""A site's history (issue 20 §3): the explorations of one site kept in the cache, newest first,
and the store a headless run writes straight into the cache to join them.

The site key is the host of an http(s) target (``https://example.com/a.xml`` and ``example.com``
are one site), with ``:port`` off the scheme's default port (``127.0.0.1:8080``: a server on
another port is another site), and the absolute path of a local file or folder. A headless run
writes its key into the store's meta; an exploration without one (the explorer's own) is keyed
by its target's host and port, else by its file name's host (session/recent.py ``Saved.site``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from sitemap_tui import USER_AGENT
from sitemap_tui.engine.discover import Target, TargetError, local_looking
from sitemap_tui.engine.sanitize import display
from sitemap_tui.engine.store import Store, StoreError, StoreLock, StoreRun
from sitemap_tui.engine.store.file import remove_partial
from sitemap_tui.session.paths import file_prefix
from sitemap_tui.session.recent import (
    Saved,
    cache_folder,
    key_host,
    key_port,
    list_saved,
    newest_named,
    url_site_key,
)

if TYPE_CHECKING:
    from sitemap_tui.engine.refetch import Refetch

INDEX = re.compile(r"^(?P<site>.+)~(?P<back>\d{1,6})$")  # SITE~N: N explorations before the latest


def site_key(target: Target) -> str:
    """The key of ``target``'s site: its host (and port, off the default), or a local target's
    absolute path."""
    parts = urlsplit(target.url)
    if parts.scheme in ("http", "https"):
        return url_site_key(target.url) or target.url
    return unquote(parts.path)


def key_of_argument(raw: str) -> str:
    """The site key of a SITE argument, as a TARGET is read. A local path that no longer exists
    still names the history of what was there (its absolute path); anything else that is no
    target raises TargetError."""
    try:
        return site_key(Target.parse(raw))
    except TargetError:
        text = raw.strip()
        # (as Target reads it: a bare word, public, is a path too, not the host the error hints at)
        if text and "://" not in text and local_looking(text):
            return str(Path(text).expanduser().absolute())
        raise


def explorations_of(key: str, saved: list[Saved] | None = None) -> list[Saved]:
    """The readable explorations of the site ``key`` in the cache, newest first."""
    items = list_saved() if saved is None else saved
    return [s for s in items if s.site == key and s.summary.problem is None]


class SiteError(ValueError):
    """A SITE that names no one site's history (one line: what to name instead)."""


@dataclass(frozen=True, slots=True)
class SiteFound:
    key: str  # the site whose explorations these are
    explorations: list[Saved]  # newest first
    note: str | None = None  # what the user is told (stderr): another port's were taken, or exist


def find_site(raw: str, saved: list[Saved] | None = None, *, exact: bool = False) -> SiteFound:
    """The explorations a SITE argument names. A host named without a port means its default
    port's site; when it has none there, the one other port's are taken (and said), and with
    several SiteError lists them. ``exact``: the default port's alone (``diff SITE`` explores
    that site now; another port's history is no earlier version of it), the others named.
    Raises TargetError for no target."""
    key = key_of_argument(raw)
    items = list_saved() if saved is None else saved
    found = explorations_of(key, items)
    if not found and "/" in key:
        site = _site_of_folder(key)
        if site is not None and (runs := explorations_of(site, items)):
            # a build folder's runs are kept under the site its robots.txt names (as they read it)
            return SiteFound(site, runs, f"{raw} is read as the site {site} (the site its folder names):"
                                         " that site's explorations")
    if "/" in key or key_port(key) is not None:  # a local path, or a port named: that site alone
        return SiteFound(key, found)
    ports = sorted({s.site for s in items if s.summary.problem is None and key_port(s.site) is not None
                    and key_host(s.site) == key}, key=lambda k: key_port(k) or 0)
    named = ", ".join(ports)
    if found or exact:
        if not ports:
            return SiteFound(key, found)
        many = len(ports) > 1
        if found:
            return SiteFound(key, found, f"{key} also has explorations on {named} "
                                         f"(another site{'s' * many}: name {'one' if many else 'it'} as HOST:PORT)")
        return SiteFound(key, found, f"{named} {'are other sites' if many else 'is another site'}")
    if len(ports) > 1:
        raise SiteError(f"{key} has explorations on several ports ({named}): name one as HOST:PORT")
    if ports:
        return SiteFound(ports[0], explorations_of(ports[0], items),
                         f"{key} has none on the default port: those of {ports[0]}")
    return SiteFound(key, found)


def _site_of_folder(path: str) -> str | None:
    """The site key a local TARGET's runs are kept under when its folder names a site
    (engine.localdir.target_site, as the commands read it), else None."""
    from sitemap_tui.engine.localdir import target_site

    local = Path(path)
    if local.suffix == ".db":  # a saved exploration is itself, whatever folder it was copied to
        return None
    try:
        site = target_site(local)
    except OSError:
        return None
    return None if site is None else url_site_key(site.origin)


def sweep_partials(folder: Path) -> None:
    """Remove what runs killed outright left in the cache (``.NAME.db.partial``): a kept run's
    name is its own second, so no later run of it would ever claim and clear it. One whose
    lock is held is a run going on, and stays."""
    for partial in folder.glob(".*.db.partial"):
        store = folder / partial.name[1:-len(".partial")]
        try:
            lock = StoreLock.acquire(store)
        except StoreError:
            continue
        try:
            remove_partial(store)
        finally:
            lock.release()


class HistoryRun:
    """A headless run's store in the cache: written hidden beside its final name and renamed into
    place when the run is complete (StoreRun), so a finished store is never copied and a failed
    run leaves nothing behind. The name is the host and the UTC second, with ``-N`` added when
    another run of the site took that second."""

    def __init__(self, target: Target, command: str, checks: str, folder: Path | None = None) -> None:
        folder = folder or cache_folder()
        folder.mkdir(parents=True, exist_ok=True)
        sweep_partials(folder)
        stem = f"{file_prefix(target)}-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
        self.run = self._claim(folder, stem)
        self.path = self.run.path
        self.store: Store = self.run.store
        self.store.set_meta("site", site_key(target))
        self.store.set_meta("command", command)
        self.store.set_meta("checks", checks)

    @staticmethod
    def _claim(folder: Path, stem: str) -> StoreRun:
        for n in range(1000):
            path = folder / (f"{stem}.db" if n == 0 else f"{stem}-{n}.db")
            if path.exists():
                continue
            try:
                run = StoreRun(path)
            except StoreError as exc:
                if "in use" in exc.reason:  # another run of the same second holds this name
                    continue
                raise
            if path.exists():  # finished between the look and the lock: not ours to replace
                run.finish(False)
                continue
            return run
        raise StoreError(folder / f"{stem}.db", "no free file name in the cache for this run")

    def finish(self, complete: bool, elsewhere: Path | None = None) -> None:
        self.run.finish(complete, elsewhere)


def carried_rules() -> frozenset[str]:
    """The rules whose issues a re-exploration does not carry over from a file that answered
    304: those decided over the whole tree (cross-file, deep checks, the tree walk's own), which
    the new run decides again over the new store."""
    from sitemap_tui.validate.registry import RULES

    stages = {"cross-file", "deep", "explore"}
    # and those a listed file's failure puts on the index or robots.txt listing it: decided
    # again when that file is fetched again (a failed file is never carried)
    failed_child = {"index-child-unfetchable", "robots-sitemap-unfetchable"}
    return frozenset(rid for rid, rule in RULES.items() if set(rule.decided_by) <= stages) | failed_child


# what a file's own checks (validate/checker.py end_file) put on the index that lists it: they
# travel with the file, not with the index (store/carry.py)
PARENT_RULES = frozenset({"index-lastmod-stale", "index-child-is-feed-or-text"})


def open_previous(target: Target, checks: str, *, exclude: Path | None = None) -> tuple[Refetch | None, str | None]:
    """What a re-exploration of ``target`` asks against: the latest exploration of its site in
    the cache judged as this run is (``checks``: all, none; a carried file's findings are then
    those this run would have made), None without one; and why it cannot be used when it
    cannot (then every file is fetched in full). ``exclude``: the store this run writes (the
    explorer's is in the cache already, the newest of its site): never its own previous."""
    from sitemap_tui.engine.refetch import Refetch

    key = site_key(target)
    mine = exclude.resolve() if exclude is not None else None
    # newest first; a damaged one is said, not passed over (its judging cannot be read)
    # the headless runs' files are named after the host (HistoryRun): those alone are read
    # (a damaged one knows no target: its file name's host is all it says of its site)
    try:
        latest = next((s for s in newest_named(prefix=f"{file_prefix(target)}-")
                       if (s.site == key or (s.summary.problem and s.site == key_host(key)))
                       and s.path.resolve() != mine and (s.summary.problem or s.summary.checks == checks)), None)
    except StoreError as exc:  # the cache folder cannot be read: nothing to ask against
        return None, f"{exc}: every file is fetched in full"
    if latest is None:
        return None, None
    if latest.summary.problem is not None:
        return None, f"cannot use the previous exploration {latest.path} ({latest.summary.problem}): every file is fetched in full"
    try:
        refetch = Refetch.open(latest.path, carried_rules, PARENT_RULES)
    except StoreError as exc:
        return None, f"cannot use the previous exploration ({exc}): every file is fetched in full"
    made_by = refetch.previous.made_by
    if made_by != USER_AGENT:
        # its findings are another version's: carried, an upgrade's fixed rule would still fire
        refetch.close()
        by = f"by {display(made_by)}" if made_by else "by an earlier sitemap-tui"
        return None, f"the previous exploration was made {by}: every file is fetched in full and judged again"
    return refetch, None
