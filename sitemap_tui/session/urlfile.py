"""A URL list file written whole or not at all: through :mod:`sitemap_tui.output` (a temp file
beside the target, then rename) so a cancelled or failed export never leaves half a file under
the user's chosen name."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from sitemap_tui.engine.formats import UrlRecord, UrlWriter
from sitemap_tui.output import missing_folders, names_folder, open_output

__all__ = ["missing_dir", "names_folder", "write_atomic"]


def missing_dir(path: Path) -> Path | None:
    """The first folder of ``path``'s parents that does not exist (the one to create), or None."""
    missing = missing_folders(Path(path))
    return missing[0] if missing else None


def write_atomic(path: Path, fmt: str, records: Iterable[UrlRecord], *, overwrite: bool = False,
                 create_dirs: bool = True, issues: bool = False, audit: Sequence[str] = ()) -> int:
    """Write all records to ``path`` through :func:`sitemap_tui.output.open_output` (a temp file
    renamed over it once every record is written; a device or FIFO written to); returns the
    count written. A write error is an OutputError (an OSError) that names the path.

    ``create_dirs=False``: a missing folder is a FileNotFoundError (the explorer asks the user
    before creating one); ``issues``: CSV / JSON Lines carry each URL's rule ids; ``audit``: the
    audit columns it carries (formats.AUDIT_COLUMNS, or those the store has results for)."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists")
    if not create_dirs and (folder := missing_dir(path)) is not None:
        raise FileNotFoundError(f"the folder {folder} does not exist")
    # the folders made for it are removed again when the export fails
    with open_output(path, create_folders=create_dirs) as out:
        writer = UrlWriter(out.file, fmt, issues=issues, audit=audit)
        batch: list[UrlRecord] = []
        for rec in records:
            batch.append(rec)
            if len(batch) >= 5000:
                writer.write(batch)
                batch = []
        writer.write(batch)
        out.commit()
    return writer.count
