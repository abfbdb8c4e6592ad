"""The bundled XML schemas: loaded from the package only (imports and includes resolve to the
bundled files, nothing else), compiled once per thread and mode."""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from lxml import etree

Mode = Literal["lax", "strict"]


MODES: tuple[str, ...] = ("lax", "strict")


SCHEMA_FILES: dict[str, str] = {
    "strict": "wrappers/sitemaps-strict.xsd",
    "lax": "wrappers/sitemaps-lax.xsd",
}


def parser_options() -> dict[str, Any]:
    """Safe lxml parser options (SECURITY.md): no entities, no network, no DTD, no huge trees."""
    return {
        "resolve_entities": False,
        "no_network": True,
        "load_dtd": False,
        "dtd_validation": False,
        "huge_tree": False,
    }


_local = threading.local()


def schema_dir() -> Any:
    """The bundled schema folder as an ``importlib.resources`` Traversable."""
    return resources.files("sitemap_tui.validate").joinpath("schemas")


class _LocalOnlyResolver(etree.Resolver):  # type: ignore[misc]
    """Records every schema document libxml2 asks for and refuses anything not a local file."""

    def __init__(self, loaded: list[str] | None) -> None:
        super().__init__()
        self.loaded = loaded

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        if self.loaded is not None:
            self.loaded.append(system_url)
        if "://" in system_url and not system_url.startswith("file:"):
            return self.resolve_string("", context)  # never fetched: compilation fails loudly
        return None  # default loader: a local file


def compile_schema(mode: str, *, loaded: list[str] | None = None) -> etree.XMLSchema:
    """Compile the wrapper for ``mode`` from the bundled files (``loaded`` collects the URLs
    of every schema document read, for tests)."""
    if mode not in SCHEMA_FILES:
        raise ValueError(f"unknown XSD mode {mode!r} (expected one of {', '.join(MODES)})")
    parser = etree.XMLParser(**parser_options())
    parser.resolvers.add(_LocalOnlyResolver(loaded))
    # A real path, so the wrappers' relative schemaLocation values ("../sitemap.xsd") resolve.
    with resources.as_file(schema_dir()) as folder:
        path = Path(folder) / SCHEMA_FILES[mode]
        return etree.XMLSchema(etree.parse(str(path), parser))


def load_schema(mode: str = "lax") -> etree.XMLSchema:
    """The compiled wrapper schema for ``mode``; one per thread (a schema keeps its error log)."""
    cache: dict[str, etree.XMLSchema] | None = getattr(_local, "schemas", None)
    if cache is None:
        cache = _local.schemas = {}
    schema = cache.get(mode)
    if schema is None:
        schema = cache[mode] = compile_schema(mode)
    return schema
