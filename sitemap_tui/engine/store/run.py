"""A headless run's store: written beside the file it replaces, put in place when complete."""

from __future__ import annotations

from pathlib import Path

from sitemap_tui.engine.store.file import (
    StoreError,
    StoreLock,
    inspect_store,
    partial_path,
    remove_partial,
    replace_store,
)
from sitemap_tui.engine.store.writer import Store


class StoreRun:
    """The store of a headless run with ``--db PATH``.

    The new exploration is written beside PATH (``.PATH.partial``) and takes its place in one
    rename when :meth:`finish` is told the run is complete. Until then, and for good when the run
    never reached its target, is interrupted or cannot write, PATH keeps what it held, byte for
    byte: a cron job that runs against a site that is down keeps its last good exploration. Only a store (or
    nothing) is ever replaced: another program's file raises StoreError first. One run per PATH
    at a time (StoreLock); a partial file left by a killed run is removed by the next one."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = StoreLock.acquire(self.path)
        try:
            inspect_store(self.path)
            remove_partial(self.path)
            self.partial = partial_path(self.path)
            self.store = Store(self.partial, shown_as=self.path)
        except BaseException:
            # a store that could not even be made (a full disk): its files go too (found from
            # outside: the partial store and its journals stayed beside PATH, holding the space)
            remove_partial(self.path)
            self.lock.release()
            raise

    def finish(self, complete: bool, elsewhere: Path | None = None) -> None:
        """Put the new exploration in place (``complete``; at ``elsewhere`` instead of PATH when
        given), or drop it; release PATH either way."""
        try:
            if complete:
                self.store.close()  # the last commit may fail too (StoreError): then PATH stays
                to = elsewhere or self.path
                try:
                    replace_store(self.partial, to)
                except OSError as exc:
                    raise StoreError(to, f"cannot write: {exc.strerror or exc}") from exc
            else:
                self.store.discard()
        finally:
            remove_partial(self.path)
            self.lock.release()
