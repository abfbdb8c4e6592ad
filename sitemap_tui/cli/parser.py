"""The command line's grammar: commands, options, their checked values and help texts.

Only argparse (and the standard library) is imported here so that `--help` stays fast."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from sitemap_tui.cli.arg_types import (
    age,
    budget,
    file_name,
    header,
    positive,
    proxy,
    rate,
    sample,
    size,
    user_agent,
    whole,
)
from sitemap_tui.cli.options import DEFAULT_MAX_TIME
from sitemap_tui.engine.cores import (
    MAX_WORKERS,
    POOL_AFTER_ENTRIES,
    POOL_AFTER_FILES,
    PROBE_WAIT,
    default_workers,
)
from sitemap_tui.engine.sanitize import display
from sitemap_tui.session.exits import EXIT_USAGE
from sitemap_tui.session.fetching import default_concurrency

COMMANDS = ("explore", "demo", "open", "urls", "stats", "discover", "validate", "audit", "rules", "diff", "cache",
            "history", "access", "completion")
HEADLESS = ("urls", "stats", "discover", "validate", "audit", "rules", "diff", "cache", "history", "access",
            "completion")  # never the TUI: stdout is their result

DESCRIPTION = """\
Explore and validate a website's sitemaps.

TARGET is a site (https://example.com, example.com), a sitemap or robots.txt URL, or a local
path (.xml, .xml.gz, .txt, robots.txt, or a directory of such files).

Options go before or after TARGET, and before or after COMMAND. Without a COMMAND, TARGET opens
the explorer (`sitemap-tui --depth 2 example.com` is `sitemap-tui explore example.com --depth 2`).
A first word that names a command is that command: a local file called `urls` is `./urls`.
"""

USAGE = """\
%(prog)s [COMMAND] [TARGET] [OPTIONS]   (options go before or after TARGET)
       %(prog)s COMMAND --help
       %(prog)s --version"""


def _usage(target: str) -> str:
    """A command's usage line: its options are listed below it, and go anywhere."""
    return f"%(prog)s [OPTIONS] {target} [OPTIONS]   (options go before or after {target})"

EPILOG = """\
examples:
  sitemap-tui https://example.com            open the explorer on a site
  sitemap-tui demo                           explore the bundled sample site (offline)
  sitemap-tui urls example.com --format csv --output urls.csv
  sitemap-tui stats https://example.com/sitemap.xml --json
  sitemap-tui validate ./public/sitemap.xml --format github
  sitemap-tui rules lastmod-future
  sitemap-tui diff before.db https://example.com --fail-if removed

Run `sitemap-tui COMMAND --help` for the options of a command.
"""

EXIT_HELP = """
exit codes:
  0  ran; nothing at or above the fail level (validate --fail-on, default error)
  1  ran, and found problems: validate found findings at or above the fail level;
     urls, stats: the target answered but is not a usable sitemap (an HTML page,
     corrupt gzip), or --strict and the result is incomplete
  2  could not run as asked: a bad option, an unreachable target, a site or folder
     with no sitemap (nothing to work on), an output that cannot be written
  128+N  stopped by signal N: 130 Ctrl-C (SIGINT), 129 SIGHUP, 143 SIGTERM; temp files
     are removed and an --output file keeps its previous content
  (docs/exit-codes.md: the whole contract, and which rules read robots.txt)
"""
SIGNAL_HELP = ("  128+N  stopped by signal N: 130 Ctrl-C (SIGINT), 129 SIGHUP, 143 SIGTERM (temp files\n"
               "     removed, an --output file as it was)\n")
# the explorer's: ctrl+c is a key there (it asks before quitting), so no 130
_EXPLORER_SIGNALS = "  128+N  stopped by signal N: 129 SIGHUP (the terminal closed), 143 SIGTERM\n"
EXPLORER_EXIT_HELP = ("\nexit codes:\n  0  the explorer was quit (q)\n"
                      "  2  could not start: a bad option, no terminal (scripts: urls, stats or validate),\n"
                      "     a file that is no exploration or cannot be written\n" + _EXPLORER_SIGNALS)
DEMO_EXIT_HELP = ("\nexit codes:\n  0  the explorer was quit (q), --serve stopped with Ctrl-C, or the tree printed\n"
                  "     (--headless, or with no terminal)\n"
                  "  2  could not start: a bad option, a --port in use\n" + _EXPLORER_SIGNALS)
# what `urls` and `stats` say of a target that answered with no sitemap (docs/exit-codes.md)
_NOT_A_SITEMAP = "the target answered but is not a usable sitemap (an HTML page, corrupt gzip)"

FAIL_LEVELS = ("error", "warning", "info", "never")


class _Parser(argparse.ArgumentParser):
    """argparse with its errors on one line (no usage block), like every other error of the tool:
    scripts read stderr line by line."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes what was typed ("unrecognized arguments: ..."): escaped like every
        # other echo, an ESC in a stray argument reached the terminal raw (found by a review)
        self.exit(EXIT_USAGE, f"sitemap-tui: error: {display(message)} (see `{self.prog} --help`)\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse drops a write error: `--help > /dev/full` exited 0 with nothing written
        if message:
            out = file or sys.stderr
            out.write(message)
            out.flush()


def _fetch_options(p: argparse.ArgumentParser, *, tree: bool = True, config: bool = True) -> None:
    """``tree``: the command has --workers too (every one but discover); ``config``: it takes
    the project config's fetching keys here (validate has --no-config among its own)."""
    g = p.add_argument_group("fetching")
    if config:
        g.add_argument("--no-config", action="store_true",
                       help="read no project config file (.sitemap-tui.toml: its headers, proxy and map)")
    g.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", type=header,
                   help="extra request header (repeatable; ASCII), sent only to the target's origin (same "
                        "scheme, host and port) and dropped on a redirect to another origin")
    g.add_argument("--header-all-hosts", action="store_true",
                   help="send the -H headers to every host (index children, redirects, --deep pages), "
                        "like curl's --location-trusted; prints a warning")
    g.add_argument("--allow-private", action="store_true",
                   help="let URLs found on the way (robots.txt, index children, redirects, --deep pages) "
                        "reach loopback, private, link-local and other non-public addresses; by default "
                        "only the target's own kind of address is reached")
    g.add_argument("--resolve", action="append", default=[], metavar="HOST:IP",
                   help="connect to IP for HOST, without DNS (repeatable); the host counts as the "
                        "user's own, like the target")
    g.add_argument("--map", action="append", default=[], metavar="URL=DIR",
                   help="read URLs under URL from the local directory DIR instead of the network "
                        "(repeatable), e.g. https://example.com/=./public/ to validate a build before "
                        "it is deployed; rules judge the URLs as on the deployed site")
    g.add_argument("--cacert", type=file_name, metavar="FILE",
                   help="trust only the CA certificates in FILE (PEM), as curl's --cacert: a staging "
                        "server's own CA")
    g.add_argument("--insecure", action="store_true",
                   help="do not check TLS certificates at all (staging before DNS cutover); prints a "
                        "warning on every run")
    g.add_argument("--proxy", type=proxy, metavar="URL",
                   help="send every request through this HTTP proxy: http://[USER:PASSWORD@]HOST:PORT "
                        "(https:// for TLS to the proxy; no SOCKS); https sites go through CONNECT, "
                        "USER:PASSWORD go to the proxy only; the HTTP(S)_PROXY variables are never used")
    g.add_argument("--user-agent", type=user_agent, help="User-Agent header (default sitemap-tui/VERSION)")
    g.add_argument("--timeout", type=positive, default=30.0, metavar="SECONDS",
                   help="deadline per file, headers and body (default 30); a third of it (10 s at least) without data is a stall, retried")
    g.add_argument("--retries", type=whole(0, 10), default=3, metavar="N",
                   help="attempts again after a 429, a 5xx, or a stall or dropped connection before the body "
                        "began, waiting as Retry-After says or 0.5 s doubled each time, within --timeout (default 3)")
    # default None: fetch_options raises it to the worker count when that is higher
    g.add_argument("--concurrency", type=whole(1, 1000), metavar="N",
                   help="parallel downloads (default 8, or the worker count where that is higher: "
                        f"{default_concurrency(default_workers())} here by default)" if tree else "parallel downloads (default 8)")
    g.add_argument("--per-host", type=whole(1, 1000), default=4, metavar="N",
                   help="parallel downloads per host (default 4)")
    g.add_argument("--max-size", type=whole(1, 65536), default=50, metavar="MIB",
                   help="decoded bytes per sitemap before it is cut (default 50 MiB)")


def _output_option(p: argparse.ArgumentParser, what: str) -> None:  # -o - is stdout, as for curl
    p.add_argument("--output", "-o", metavar="FILE", type=lambda v: None if v == "-" else v,
                   help=f"write {what} here instead of stdout (- is stdout). FILE is replaced only by a complete result "
                        "(a temp file beside it, renamed over it; a failed or stopped run leaves it as it "
                        "was); a device or FIFO is written to, a symlink's file is replaced; missing "
                        "folders are created (docs/safety.md)")


def _strict_option(p: argparse.ArgumentParser, also: str = "", *, output: bool = True) -> None:
    kept = "; an --output FILE then keeps its previous content" if output else ""
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the result is incomplete: files not fetched (depth limit, "
                        "file budget, fan-out cap, other hosts, failures, cancel) or cut short "
                        f"(entry or size cap){also}{kept}. Each cause is said on stderr, with or without it")


def _tree_options(p: argparse.ArgumentParser, *, recursive: bool = True, db: bool = True,
                  history: bool = True, cache: bool = True, headless: bool = True) -> None:
    g = p.add_argument_group("exploring")
    if recursive:
        g.add_argument("--no-recursive", action="store_true",
                       help="only the target itself, not the sitemaps it lists")
    g.add_argument("--depth", type=whole(0, 1000), default=10, metavar="N",
                   help="index levels read below the first sitemaps, those robots.txt, the home page or "
                        "TARGET names (default 10; 0: those alone)")
    g.add_argument("--max-files", type=whole(1, 10_000_000), default=10_000, metavar="N",
                   help="total files budget (default 10000)")
    if headless:  # (the explorer's user stops a long run with x)
        g.add_argument("--max-time", type=budget, default=DEFAULT_MAX_TIME, metavar="SECONDS",
                       help="time budget of the whole run (the exploration, then validate --deep's or audit's "
                            "page fetches; each of validate's TARGETs its own): when it runs out nothing new is "
                            f"started and what runs stops, said on stderr (default {DEFAULT_MAX_TIME:g}; 0: none)")
    g.add_argument("--probe", action="store_true",
                   help="probe common sitemap paths even when robots.txt lists sitemaps")
    g.add_argument("--follow-cross-host", action="store_true",
                   help="also fetch index children on other hosts, or other ports of the host (flagged either way)")
    if db:
        g.add_argument("--db", type=file_name, metavar="PATH",
                       help="keep the exploration in this SQLite file; a headless run replaces what it held "
                            "once the run is complete, the explorer refuses one that holds an exploration")
    g.add_argument("--workers", type=whole(0, MAX_WORKERS), metavar="N",
                   help="parser processes (default: one per usable core, after CPU affinity and any "
                        f"cgroup CPU quota: {default_workers()} here, started once a run lists more than {POOL_AFTER_FILES} "
                        f"files or parses {POOL_AFTER_ENTRIES:,} URLs, or its first file takes over {PROBE_WAIT:g} s; 0 parses in the "
                        "main process). "
                        "Files in flight: at least one per worker (requests within --concurrency and --per-host)")
    if history:
        kept = "kept by default, unless --db names a file" if db else "kept by `diff SITE` alone"
        g.add_argument("--no-history", action="store_true",
                       help=f"do not keep this exploration in the cache ({kept}: `sitemap-tui history SITE` "
                            "lists them, `diff SITE` compares with the latest; the cache's limits apply, see "
                            "`cache prune`)")
    if cache:
        g.add_argument("--no-cache", action="store_true",
                       help="fetch every file in full: by default a site explored before is re-explored "
                            "conditionally (If-None-Match / If-Modified-Since from its latest exploration in the "
                            "cache) and a file that answers 304 Not Modified is carried over from it")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sitemap-tui", usage=USAGE, description=DESCRIPTION, epilog=EPILOG + EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from sitemap_tui import __version__

    parser.add_argument("--version", action="version", version=f"sitemap-tui {__version__}")
    # prog: argparse would build the commands' names from USAGE, all three lines of it
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="sitemap-tui")
    fmt = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("explore", usage=_usage("TARGET"), help="open the explorer on TARGET (the default command)",
                       formatter_class=fmt,
                       epilog="example:\n  sitemap-tui explore https://example.com\n" + EXPLORER_EXIT_HELP)
    p.add_argument("target", metavar="TARGET")
    _fetch_options(p)
    _tree_options(p, recursive=False, history=False, headless=False)
    p.add_argument("--rate", type=rate, default=5.0, metavar="R",
                   help="pages per second per host that the audit (u) and the deep checks fetch (default 5; "
                        "0: no limit, for your own servers)")

    p = sub.add_parser("demo", help="serve the bundled sample site on 127.0.0.1 and explore it",
                       formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui demo\n  sitemap-tui demo --serve --port 8000\n"
                              + DEMO_EXIT_HELP)
    p.add_argument("--serve", action="store_true", help="only serve the site (until Ctrl-C)")
    p.add_argument("--port", type=whole(0, 65535), default=0, help="port (default 0: a free one)")
    p.add_argument("--headless", action="store_true",
                   help="print the explored tree instead of opening the explorer")

    p = sub.add_parser("open", help="reopen a saved exploration (.db) offline; without FILE, pick a recent one",
                       formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui open                 pick from the recent explorations\n"
                              "  sitemap-tui open --list          print them (site, date, URLs, size, file)\n"
                              "  sitemap-tui open ~/.cache/sitemap-tui/explorations/example.com-20250101-120000.db\n"
                              + EXPLORER_EXIT_HELP)
    p.add_argument("db", type=file_name, metavar="FILE.db", nargs="?")
    p.add_argument("--list", action="store_true", help="print the recent explorations instead of opening one")
    p.add_argument("--json", action="store_true", help="with --list: JSON, explorations grouped by site")

    p = sub.add_parser("urls", usage=_usage("TARGET"), help="print every URL of the sitemaps", formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui urls example.com > urls.txt\n"
                              "  sitemap-tui urls sitemap.xml.gz --format jsonl --output urls.jsonl\n"
                              "\nEntries without a URL are not URLs; locs that are not http(s) are left out\n"
                              "unless --keep-non-http (counted on stderr). JSON shapes: docs/json.md\n" + EXIT_HELP)
    p.add_argument("target", metavar="TARGET")
    p.add_argument("--format", choices=("txt", "csv", "jsonl"), default="txt",
                   help="txt (default), csv or jsonl; CSV cells that start with = + - @, TAB or CR get a "
                        "leading ' so that spreadsheets show them as text, never run them as a formula")
    p.add_argument("--csv-raw", action="store_true",
                   help="with --format csv: no leading ' before a formula start (for programs, not spreadsheets); "
                        "control characters are still written as escapes (\\x1b), as in every output")
    _output_option(p, "the URLs")
    p.add_argument("--keep-non-http", action="store_true",
                   help="also print locs whose scheme is not http(s) (javascript:, mailto:, file:, ...);"
                        " by default they are left out and counted on stderr")
    _strict_option(p)
    _fetch_options(p)
    _tree_options(p)

    p = sub.add_parser("stats", usage=_usage("TARGET"), help="the sitemap tree with per-file statistics", formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui stats example.com\n  sitemap-tui stats example.com --json | jq .\n" + EXIT_HELP)
    p.add_argument("target", metavar="TARGET")
    p.add_argument("--json", action="store_true", help="JSON output")
    _output_option(p, "the statistics")
    _strict_option(p)
    _fetch_options(p)
    _tree_options(p)

    p = sub.add_parser("discover", usage=_usage("SITE"), help="find a site's sitemaps (robots.txt, common paths, home page)",
                       formatter_class=fmt, epilog="example:\n  sitemap-tui discover example.com --json\n" + EXIT_HELP)
    p.add_argument("target", metavar="SITE")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--probe", action="store_true", help="probe common paths even when robots.txt lists sitemaps")
    _strict_option(p, "; or a sitemap that robots.txt or the home page lists is not found (an error "
                      "answer, not a sitemap, not fetched)", output=False)
    _fetch_options(p, tree=False)

    p = sub.add_parser("validate", usage=_usage("TARGET"), help="check the sitemaps against the rule catalogue (exit 1 on errors, --fail-on)",
                       formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui validate example.com\n"
                              "  sitemap-tui validate public/sitemap.xml --format sarif --output sitemap.sarif\n"
                              "  sitemap-tui validate example.com --select lastmod-,loc- --min-severity warning\n"
                              "  sitemap-tui validate ./public --fail-on warning\n"
                              "\nThe site's robots.txt is read whatever TARGET is (a site, a sitemap or robots.txt URL);\n"
                              "a local file or folder whose robots.txt names one site is read as that site (as --map\n"
                              "would); without one the robots-based rules do not run, and a folder's sitemaps are\n"
                              "picked by name and content. What was skipped is said.\n" + EXIT_HELP)
    # several: the pre-commit hook passes the changed files; none: --show-config
    p.add_argument("target", metavar="TARGET", nargs="*",
                   help="what to check; several (a pre-commit hook's files, text or github format) are "
                        "checked one after the other, the exit code the worst of theirs")
    p.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    _output_option(p, "the report")
    _ci_options(p)
    p.add_argument("--select", metavar="RULES", help="comma-separated rule ids or prefixes to run")
    p.add_argument("--ignore", metavar="RULES", help="comma-separated rule ids or prefixes to skip")
    p.add_argument("--min-severity", choices=("info", "warning", "error"), default="info",
                   help="report only findings at or above this severity (default info)")
    p.add_argument("--fail-on", choices=FAIL_LEVELS, default=None,  # None: the config's, else error
                   help="exit 1 when a reported finding is at or above this severity (default error: "
                        "a sitemap with only warnings passes); never: exit 1 only for --strict. "
                        "Exit 2 (could not run) whatever the level")
    p.add_argument("--no-robots-checks", action="store_true",
                   help="do not read robots.txt to judge the sitemaps: the robots-based rules "
                        "(docs/exit-codes.md) do not run, and no robots.txt submission voids a "
                        "location finding; the summary says so")
    p.add_argument("--xsd", choices=("lax", "strict", "off"), default="lax",
                   help="XML Schema validation mode (default lax: unknown vendor namespaces allowed)")
    p.add_argument("--deep", action="store_true", help="also fetch a sample of the listed pages")
    p.add_argument("--sample", type=sample, default=argparse.SUPPRESS, metavar="N",
                   help="URLs per sitemap for --deep, or 'all' (default 100)")
    p.add_argument("--rate", type=rate, default=None, metavar="R",
                   help="--deep requests per second per host (default 5; 0: no limit, for your own servers)")
    p.add_argument("--ignore-robots", action="store_true",
                   help="--deep fetches pages robots.txt disallows for sitemap-tui, and ignores its Crawl-delay "
                        "(your own site behind a staging robots.txt)")
    _strict_option(p)
    _fetch_options(p, config=False)
    _tree_options(p)

    _audit_parser(sub, fmt)
    _diff_parser(sub, fmt)

    p = sub.add_parser("cache", help="list or prune the explorations kept in the cache", formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui cache list\n  sitemap-tui cache prune --dry-run\n"
                              "  sitemap-tui cache prune --max-size 2GiB --older-than 30d\n"
                              "\nDefault limits: 2 GiB and 90 days, or the config file's [cache] table\n"
                              "(max_size = \"2GiB\", max_age = \"30d\"). Exit 1 when a file could not be removed.")
    p.add_argument("action", choices=("list", "prune"), metavar="list|prune")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument("--max-size", dest="cache_max_size", type=size, metavar="SIZE",
                   help="prune: the oldest go until all fit in SIZE (e.g. 2GiB, 500MB)")
    p.add_argument("--older-than", type=age, metavar="AGE",
                   help="prune: remove those last written more than AGE ago (e.g. 30d, 12h, 2w)")
    p.add_argument("--dry-run", action="store_true", help="prune: say what would go, remove nothing")
    p.add_argument("--keep", type=file_name, action="append", default=[], metavar="FILE",
                   help="prune: never remove this exploration (repeatable)")

    _history_parser(sub, fmt)
    _access_parser(sub, fmt)

    p = sub.add_parser("rules", help="list the validation rules, or explain one", formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui rules\n  sitemap-tui rules hreflang-missing-self")
    p.add_argument("rule", nargs="?", metavar="ID")
    p.add_argument("--json", action="store_true", help="JSON output")

    p = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)", formatter_class=fmt,
                       epilog="examples:\n  sitemap-tui completion bash > ~/.local/share/bash-completion/completions/sitemap-tui\n"
                              "  sitemap-tui completion zsh > ~/.zfunc/_sitemap-tui    (a folder on $fpath)\n"
                              "  sitemap-tui completion fish > ~/.config/fish/completions/sitemap-tui.fish\n"
                              "\nThe script is static (made by shtab from these options): regenerate it after an upgrade.")
    p.add_argument("shell", choices=("bash", "zsh", "fish"), metavar="bash|zsh|fish",
                   help="the shell to write the script for")
    return parser


def _ci_options(p: argparse.ArgumentParser) -> None:
    """validate's options for CI: the summary, the baseline and the project config."""
    g = p.add_argument_group("CI (README: In CI)")
    g.add_argument("--summary", action=argparse.BooleanOptionalAction, default=None,
                   help="text format: one line per rule (severity, count, the first URLs), then the "
                        "totals, instead of one line per finding. Default: on when stdout is a terminal "
                        "and the findings exceed a screenful, else off; --no-summary lists every finding")
    g.add_argument("--summary-urls", type=whole(0, 1000), default=3, metavar="N",
                   help="URLs shown per rule by --summary (default 3)")
    g.add_argument("--baseline", metavar="FILE",
                   help="report only findings not in FILE (a report of --format json or sarif, or "
                        "--write-baseline's); the exit code follows the new ones, stderr counts the "
                        "others. A finding is the same when its rule, file and entry URL are: lines may move")
    g.add_argument("--write-baseline", metavar="FILE",
                   help="write the current findings to FILE as a baseline (JSON; replaced only when the "
                        "run completes)")
    g.add_argument("--show-config", action="store_true",
                   help="print the options as merged from the project config (.sitemap-tui.toml or "
                        "pyproject.toml's [tool.sitemap-tui], found upward) and the command line, "
                        "where each came from, and exit 0")
    g.add_argument("--no-config", action="store_true", help="read no project config file")


def _fail_if(text: str) -> str:
    # the names are checked by the command (cli/failif.py), which knows its summary's keys
    if not text.strip():
        raise argparse.ArgumentTypeError("expected NAME or NAME OP NUMBER, not an empty condition")
    return text


# audit's summary counts (engine/store/audit.py audit_counts), for --fail-if; here so --help
# needs no import of the command
AUDIT_SUMMARY_KEYS = (
    "listed", "audited", "not_audited", "indexable", "non_indexable", "multiple_sitemaps",
    "redirects", "client_errors", "server_errors", "other_status", "noindex", "canonicalised", "blocked",
    "not_html", "timeouts", "no_response",
    # --compare-list / --crawl (engine/store/coverage.py coverage_counts): 0 without them
    "missing_from_sitemaps", "orphans", "not_in_list",
)


def _audit_parser(sub: argparse._SubParsersAction, fmt: type[argparse.HelpFormatter]) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "audit", usage=_usage("TARGET"), help="fetch every listed URL: status, redirects, indexability, robots.txt",
        formatter_class=fmt,
        epilog="examples:\n  sitemap-tui audit example.com\n"
               "  sitemap-tui audit example.com --format jsonl --output audit.jsonl\n"
               "  sitemap-tui audit example.com --sample 200 --fail-if 'non_indexable>0'\n"
               "  sitemap-tui audit http://127.0.0.1:8000/sitemap.xml --rate 0   (your own server)\n"
               "  sitemap-tui audit example.com --compare-list crawl-export.csv --crawl 500 --fail-if orphans\n"
               "\nExplores TARGET as validate does, then fetches each listed URL once (a URL listed twice\n"
               "is one), politely: --rate per host, robots.txt obeyed (Crawl-delay, 429/503 Retry-After\n"
               "waits said on stderr), HEAD where headers suffice, at most 256 KiB of a page's head read.\n"
               "URLs on another host than the sitemaps' are fetched only with --follow-cross-host.\n"
               "Results are stored as they come (--db FILE, else the exploration kept in the history):\n"
               "run the same command again after a stop and it goes on; --recheck starts over.\n"
               "--compare-list and --crawl N report what is missing from the sitemaps: indexable pages of\n"
               "the list or found by links that no sitemap lists, sitemap URLs absent from the list, and\n"
               "orphans (listed URLs none of the N crawled pages links to).\n"
               f"\nsummary keys (--fail-if): {', '.join(AUDIT_SUMMARY_KEYS)}\n"
               "\nexit codes:\n  0  audited; no --fail-if condition met\n  1  a --fail-if condition is met, or\n"
               f"     {_NOT_A_SITEMAP}\n"
               "  2  could not run as asked: a bad option or condition, an unreachable target\n" + SIGNAL_HELP)
    p.add_argument("target", metavar="TARGET")
    p.add_argument("--format", choices=("text", "jsonl", "csv"), default="text",
                   help="text (default: counts by group with samples), jsonl or csv (one record per URL: "
                        "loc, sitemap, status, final_url, redirects, indexable, reason, canonical, "
                        "blocked_for, lastmod, last_modified, ...)")
    _output_option(p, "the result")
    p.add_argument("--sample", type=sample, default=None, metavar="N",
                   help="URLs per sitemap, evenly spaced (default: all)")
    p.add_argument("--rate", type=rate, default=5.0, metavar="R",
                   help="requests per second per host (default 5; 0: no limit, for your own servers)")
    p.add_argument("--ignore-robots", action="store_true",
                   help="fetch URLs robots.txt disallows for sitemap-tui, and ignore its Crawl-delay")
    p.add_argument("--recheck", action="store_true",
                   help="explore again and fetch every URL again, even when an unfinished audit could go on")
    p.add_argument("--fail-if", action="append", default=[], metavar="COND", type=_fail_if,
                   help="exit 1 when COND holds: NAME (meaning NAME>0) or NAME OP NUMBER, OP one of "
                        "> >= < <= == !=; NAME a summary key (below) (repeatable: any one met fails)")
    p.add_argument("--samples", type=whole(0, 1_000_000), default=5, metavar="N",
                   help="URLs shown per group in the text summary (default 5)")
    p.add_argument("--compare-list", type=file_name, default=None, metavar="FILE",
                   help="a URL list to compare with the sitemaps: one URL per line, or a CSV with a url, "
                        "Address, loc or page column; its URLs of no sitemap are fetched (at most --sample N) "
                        "for their indexability")
    p.add_argument("--crawl", type=whole(1, 10_000_000), default=None, metavar="N",
                   help="crawl at most N pages by their <a href> links from the home page (same host, "
                        "robots.txt and --rate obeyed): pages missing from the sitemaps, and orphans")
    _fetch_options(p)
    _tree_options(p)


def _diff_parser(sub: argparse._SubParsersAction, fmt: type[argparse.HelpFormatter]) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "diff", usage="%(prog)s [OPTIONS] OLD [NEW] [OPTIONS]   (options go before or after OLD and NEW)",
        help="what changed between two explorations (saved .db files or targets explored now)",
        formatter_class=fmt,
        epilog="examples:\n  sitemap-tui diff before.db https://example.com\n"
               "  sitemap-tui diff example.com                 (now vs the latest kept exploration)\n"
               "  sitemap-tui diff ./public-old ./public --format json --output changes.json\n"
               "  sitemap-tui diff old.db new.db --fail-if 'removed>100' --fail-if issues_new\n"
               "  sitemap-tui diff old.db https://new.example --map-host old.example=new.example\n"
               "\nOLD and NEW are each a saved exploration (a --db file of urls, stats or validate, or the\n"
               "explorer's file in the cache) or a TARGET explored now with every rule, as validate does.\n"               "SITE~N is the exploration of SITE kept N before the latest (SITE~0 the latest; `sitemap-tui\n"
               "history SITE` lists them): `diff example.com~1 example.com~0` fetches nothing.\n"
               "URLs are compared by the key the duplicate rules use (README: What changed).\n"
               "\nexit codes:\n  0  compared; no --fail-if condition met\n  1  a --fail-if condition is met\n"
               "  2  could not run as asked: a bad option or condition, a file that is no exploration,\n"
               "     an unreachable target\n" + SIGNAL_HELP)
    p.add_argument("old", metavar="OLD", help="the earlier exploration: a saved .db file, or a TARGET to explore now")
    p.add_argument("new", metavar="NEW", nargs="?",
                   help="the later one, the same way. Without NEW, OLD is a SITE: a fresh exploration of it "
                        "(kept in the history) is compared with the latest one kept")
    p.add_argument("--format", choices=("text", "json", "jsonl", "csv", "github"), default="text",
                   help="text (default: counts, then samples), json (a \"summary\" object and the full "
                        "lists), jsonl or csv (one change a record), github (workflow annotations)")
    _output_option(p, "the report")
    p.add_argument("--fail-if", action="append", default=[], metavar="COND", type=_fail_if,
                   help="exit 1 when COND holds: NAME (meaning NAME>0) or NAME OP NUMBER, OP one of "
                        "> >= < <= == !=; NAME is a summary key (urls_removed, issues_new, ...) or "
                        "added, removed, moved (repeatable: any one met fails)")
    p.add_argument("--map-host", action="append", default=[], metavar="OLD=NEW",
                   help="compare OLD's host as NEW (a migration): every URL, sitemap and hreflang key "
                        "on host OLD, in either exploration, counts as on NEW (repeatable)")
    p.add_argument("--samples", type=whole(0, 1_000_000), default=10, metavar="N",
                   help="URLs shown per list in the text and github formats (default 10)")
    p.add_argument("--tui", action="store_true",
                   help="open the explorer on NEW in compare mode against OLD (tree badges, a Changes "
                        "tab, diff: filters) instead of printing a report")
    _fetch_options(p)
    _tree_options(p, db=False)  # (--no-history: the one-argument form keeps its fresh exploration)


def _history_parser(sub: argparse._SubParsersAction, fmt: type[argparse.HelpFormatter]) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "history", usage=_usage("SITE"), help="list the explorations of a site kept in the cache, newest first",
        formatter_class=fmt,
        epilog="examples:\n  sitemap-tui history example.com\n  sitemap-tui history ./public/sitemap.xml --json\n"
               "\nurls, stats, validate, diff SITE and the explorer keep each exploration in the cache\n"
               "(--no-history opts out). SITE is read as a TARGET and matched by its site key: the host\n"
               "of a URL (https://example.com/a.xml is example.com), with :PORT off the default port\n"
               "(example.com:8080 is another site; a host alone finds its only port's), or the\n"
               "absolute path of a local file or folder. The errors and warnings of a urls or stats run\n"
               "are the parser's and fetcher's only: those commands check no rules.")
    p.add_argument("target", metavar="SITE")
    p.add_argument("--json", action="store_true", help="JSON output")


def _access_parser(sub: argparse._SubParsersAction, fmt: type[argparse.HelpFormatter]) -> None:  # type: ignore[type-arg]
    from sitemap_tui.engine.agents import DEFAULT_AGENTS

    p = sub.add_parser(
        "access", usage=_usage("TARGET|FILE.db"),
        help="which crawlers robots.txt lets fetch the listed URLs (a crawler x URL-count matrix)",
        formatter_class=fmt,
        epilog="examples:\n  sitemap-tui access example.com\n"
               "  sitemap-tui access saved.db --agents GPTBot,ClaudeBot --list --format csv\n"
               "\nEach URL is judged by the robots.txt of its own origin (RFC 9309, protego); nothing else\n"
               "is fetched. A URL whose origin's robots.txt was not read is counted as unknown, never as\n"
               "allowed. A saved exploration (FILE.db) is read offline and not changed. Google-Extended is\n"
               "a product token, not a crawler: it says whether Google may use what Googlebot fetched to\n"
               "train and ground Gemini models (README: Crawler access).\n"
               "\nexit codes:\n  0  ran (a file that failed or was left out is said on stderr)\n"
               f"  1  {_NOT_A_SITEMAP}\n"
               "  2  could not run as asked: a bad option, an unreachable target, no sitemap, a file that\n"
               "     is no exploration, an output that cannot be written\n" + SIGNAL_HELP)
    p.add_argument("target", metavar="TARGET|FILE.db")
    p.add_argument("--agents", metavar="A,B,...",
                   help="the crawlers, as robots.txt user-agent tokens (default: " + ",".join(DEFAULT_AGENTS) + ")")
    p.add_argument("--format", choices=("text", "csv", "jsonl"), default="text",
                   help="text (default), csv (one row per sitemap and crawler) or jsonl (one record per sitemap; "
                        "the last, with sitemap null, is the total)")
    p.add_argument("--list", action="store_true",
                   help="print the URLs some crawler may not fetch (or of unknown access) instead of the counts")
    _output_option(p, "the result")
    _fetch_options(p)
    _tree_options(p)
