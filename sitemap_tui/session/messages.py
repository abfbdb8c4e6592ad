"""What crosses between the explorer and its engine host (a thread or a process of its own):
commands one way, replies the other. Plain dataclasses of picklable values, so that both the
pipe of the engine process and a thread hand them over as they are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from sitemap_tui.engine.discover import Target
    from sitemap_tui.engine.events import Event

Result = bool | int | str | None
"""A command's result: a bool/int/str/None (a node becomes its id), or ``"cancelled"``."""


# -- commands: interface -> engine ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Open:
    what: ClassVar[str] = "open"
    target: Target


@dataclass(frozen=True, slots=True)
class Expand:
    """Fetch one sitemap's children (``expand``), all of them down the tree (``expand-all``), or
    fetch the node again (``reload``: a conditional GET; ``refetch``: unconditionally, as after
    ``Follow``, whose skipped children a 304 would leave skipped)."""

    node_id: int
    what: str = "expand"  # "expand", "expand-all", "reload" or "refetch"


@dataclass(frozen=True, slots=True)
class Deep:
    what: ClassVar[str] = "deep"
    node_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Crossfile:
    what: ClassVar[str] = "crossfile"
    when_idle: bool = False  # start once the fetches in progress end instead of being refused


@dataclass(frozen=True, slots=True)
class Follow:
    """From now on, follow index children on another host (or not): the ``f`` key of the
    explorer. The -H headers still go to the target's origin only (fetch.py)."""

    what: ClassVar[str] = "follow"
    cross_host: bool


@dataclass(frozen=True, slots=True)
class Audit:
    """Fetch the listed URLs of these sitemaps and keep each one's status and indexability
    (engine/audit.py; ``sitemap-tui audit``'s fetching). URLs with a result are not fetched
    again: a second run goes on where a cancelled one stopped."""

    what: ClassVar[str] = "audit"
    node_ids: tuple[int, ...]
    whole: bool = False  # every sitemap of the exploration: its audit state becomes complete


@dataclass(frozen=True, slots=True)
class Access:
    """Bring the crawler-access table up to date (engine/access.py; robots.txt only, nothing is
    fetched). ``auto``: the app's own run after an expand-all."""

    what: ClassVar[str] = "access"
    auto: bool = False


@dataclass(frozen=True, slots=True)
class Index:
    """Build the index a sorted URL listing walks (Store.ensure_index), with the engine's own
    connection: one from the interface committed between the engine's reads and its next write,
    and that write failed ("database is locked"), stopping an expand-all for good."""

    what: ClassVar[str] = "index"
    name: str


@dataclass(frozen=True, slots=True)
class Cancel:
    what: ClassVar[str] = "cancel"


@dataclass(frozen=True, slots=True)
class Stop:
    what: ClassVar[str] = "stop"


Command = Open | Expand | Deep | Crossfile | Follow | Cancel | Stop | Audit | Access | Index
EXPAND_COMMANDS = ("expand", "expand-all", "reload", "refetch")


# -- replies: engine -> interface -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Ready:
    """The store and explorer are up; commands are accepted."""


@dataclass(frozen=True, slots=True)
class Events:
    """One batch of engine events."""

    events: list[Event]


@dataclass(frozen=True, slots=True)
class Done:
    """A command finished; ``what`` is ``"crossfile"`` (node None) when the cross-file rules ran
    over the store and kept ``result`` issues (``"cancelled"``: nothing changed)."""

    what: str
    node_id: int | None
    result: Result


@dataclass(frozen=True, slots=True)
class Failed:
    """A command (or the engine) failed. ``what`` is ``"engine"`` when the engine could not start
    (or stopped), ``"store"`` when the store refused a write (a full disk): then nothing more is
    fetched, and every later command that would write is refused with the same message;
    ``"cache"`` when the re-exploration cannot use the previous exploration, or one file's copy
    in it (that file is fetched in full: a warning, nothing stops)."""

    what: str
    message: str
    node_id: int | None = None


@dataclass(frozen=True, slots=True)
class DeepProgress:
    done: int
    total: int


@dataclass(frozen=True, slots=True)
class CrossfileStep:
    """The cross-file rules started a step (a short label)."""

    step: str


@dataclass(frozen=True, slots=True)
class SearchProgress:
    """The substring search index is being built (idle time only)."""

    covered: int
    total: int


@dataclass(frozen=True, slots=True)
class AuditProgress:
    """An audit stored ``done`` results of the ``total`` URLs it had to fetch when it started."""

    done: int
    total: int


@dataclass(frozen=True, slots=True)
class AuditNote:
    """What an audit or the deep checks must tell the user (a host not fetched, a Retry-After
    wait, a robots.txt that could not be read, pages it kept out), once each."""

    text: str
    title: str = "audit"  # which run says it


@dataclass(frozen=True, slots=True)
class Outdated:
    """A file fetched again (``node_id``) changed what earlier whole-tree results were made
    from: ``parts`` names them, "crossfile" (their issues were dropped) and "access" (the
    crawler-access table has rows to judge). The interface runs them again or says so."""

    node_id: int
    parts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Exited:
    """The engine process is about to end (its last message on the pipe)."""


Reply = (Ready | Events | Done | Failed | DeepProgress | CrossfileStep | SearchProgress | Exited
         | AuditProgress | AuditNote | Outdated)
