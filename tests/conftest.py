"""Shared fixtures: the bundled demo site served for real on 127.0.0.1."""

from __future__ import annotations

import compileall
import fcntl
import gc
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import textual._wait
import textual.constants
from hypothesis import settings
from pytest_httpserver import HTTPServer

from sitemap_tui.demo.server import DemoServer
from sitemap_tui.engine import netpolicy

# The Pilot tests wait for what they check (settle, wait_for); two of Textual's own waits only
# added time. Each press waited for the process to look idle in 20 ms windows, three times a press
# (textual._wait), and each tab switch for its underline's animation: 90 ms for a bare "down" and
# 0.5 s for a tab key. 5 ms windows and no animations (every test checks the end state, which is
# the same) halved five Pilot files' time, 101 s to 53 s.
textual._wait.SLEEP_GRANULARITY = 0.005
textual._wait.SLEEP_IDLE = 0.00025
textual.constants.TEXTUAL_ANIMATIONS = "none"  # read by each App as it is built

SHARED = Path(__file__).resolve().parents[2] / "shared"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: half as many test processes again as cores. The Pilot and server tests spend
    much of their time waiting (frames, sockets, the engine process): on the 2-core CI box three
    processes ran the suite in 6 min 16 s where two took 8 min 14 s (same clone, one batch)."""
    cores = os.process_cpu_count() if hasattr(os, "process_cpu_count") else len(os.sched_getaffinity(0))
    cores = cores or 1
    return cores + max(1, cores // 2)


@pytest.fixture(autouse=True)
def _fresh_dns_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The target's first DNS answer is kept for the life of the process (engine/netpolicy.py);
    each test starts with none, as each run of the tool does."""
    monkeypatch.setattr(netpolicy, "_PINNED", {})


@pytest.fixture(scope="session")
def demo_server() -> Iterator[DemoServer]:
    server = DemoServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def demo_url(demo_server: DemoServer) -> str:
    return demo_server.base_url


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver on 127.0.0.1 (not "localhost", which may resolve to ::1 first)."""
    return ("127.0.0.1", 0)


@pytest.fixture()
def threaded_httpserver() -> Iterator[HTTPServer]:
    """A pytest-httpserver of its own that answers requests in threads (an audit's slow page must
    not hold the others up), 404 for paths nobody set up."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.no_handler_status_code = 404
    server.start()
    try:
        yield server
    finally:
        server.clear()
        if server.is_running():
            server.stop()


@pytest.fixture()
def httpserver(make_httpserver: HTTPServer) -> HTTPServer:
    """pytest-httpserver's fixture, answering a path nobody set up with 404 as a site does, not
    500: the engine retries a 5xx (3.5 s of backoff), and the probes of common paths and
    robots.txt asked for it in every test that explores a bare server (172 s of the suite's
    sleeping). A test that wants a 5xx serves one."""
    server = make_httpserver
    if "clear" not in vars(server):  # once per session server

        def clear() -> None:  # a test's own clear() resets it to 500 (pytest-httpserver's default)
            HTTPServer.clear(server)
            server.no_handler_status_code = 404

        server.clear = clear  # type: ignore[method-assign]
    server.clear()
    return server


# The suite's ground rules, which hold however it is run (serial, or in parallel with xdist):
# * No test reads or writes the user's real config, cache or data: the session gets a fresh HOME
#   and XDG_* directories, set in os.environ so that xdist workers and every CLI subprocess
#   inherit them.
# * Every test gets one kind marker, unit, engine or tui (see _kind), and the hostile-input suite
#   is also slow; `-m unit` is the quick loop.
# * Expensive session fixtures that xdist workers would each build are built once per run
#   (shared_across_workers), or their tests share an xdist_group (run with --dist loadgroup).
TESTS = Path(__file__).resolve().parent

# -- the user's directories --------------------------------------------------------------------
USER_DIR_VARS = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
# a developer's own override would bypass XDG_CONFIG_HOME; tests that want a config set it themselves;
# a GitHub runner's workspace is where --format github names files from (tests that want one set it)
CLEARED_VARS = ("SITEMAP_TUI_CONFIG", "GITHUB_WORKSPACE")
_ENV_KEY = pytest.StashKey[tuple[Path, Path, dict[str, str | None]]]()


def pytest_configure(config: pytest.Config) -> None:
    # pytest_configure (not a fixture) so that collection-time code and xdist workers, spawned
    # later with this environment, are covered too; each worker then makes its own directories.
    real_home = Path.home()
    root = Path(tempfile.mkdtemp(prefix="sitemap-tui-tests-home-"))
    saved = {name: os.environ.get(name) for name in (*USER_DIR_VARS, *CLEARED_VARS)}
    for name in USER_DIR_VARS:
        path = root / name.lower()
        path.mkdir()
        os.environ[name] = str(path)
    for name in CLEARED_VARS:
        os.environ.pop(name, None)
    config.stash[_ENV_KEY] = (root, real_home, saved)
    # A suite started in the background by a non-interactive shell (`cmd &` in a CI script)
    # inherits SIGINT ignored, and so does every process it starts: the Ctrl-C tests then saw
    # their runs ignore it (found from outside: 4 of tests/test_outputs.py failed that way).
    # Python's own handler, as a run from a terminal has it; each xdist worker does this too.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the controller did it for its workers
        _compile_package()


def _compile_package() -> None:
    """The package's modules compiled to bytecode once, before the run (into its git-ignored
    __pycache__ folders; a module whose bytecode is up to date is skipped).

    Installed editable, the package is never compiled by pip, and with PYTHONDONTWRITEBYTECODE
    set (as on the CI box) no process writes its bytecode: every process compiled it from source
    again, ~0.25 s of CPU per CLI run with its parser workers (the hostile suite's 129 CLI runs:
    122 -> 102 s). Reading bytecode that exists is allowed; the code that runs is the same."""
    import sitemap_tui

    compileall.compile_dir(Path(sitemap_tui.__file__).parent, quiet=2)  # unwritable: left as it is


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is alive once the tests are collected (every item, the test modules, the imports)
    lives for the whole run: it is frozen out of the cyclic collector's sight, and full passes are
    made rare, as the explorer itself does (sitemap_tui/tui/gc_tuning.py; the apps the tests start
    leave it off, so that no test's objects are frozen for good).

    A full pass walked all of that: ~70 ms each, 25 of them in two Pilot tests of the drill and
    the export, 2.2 of their 7 s of CPU (the rendering's many small caches trip the collector).
    Frozen and with full passes 10x rarer: 0.45 s. What each test leaves still goes by reference
    counting or the young passes, and the full passes still come."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _ENV_KEY not in config.stash:
        return
    root, _, saved = config.stash[_ENV_KEY]
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def user_dirs_root(pytestconfig: pytest.Config) -> Path:
    """The temporary directory that holds this process's HOME and XDG_* directories."""
    return pytestconfig.stash[_ENV_KEY][0]


@pytest.fixture(scope="session")
def real_home(pytestconfig: pytest.Config) -> Path:
    """The user's real home directory (what HOME was before the session replaced it)."""
    return pytestconfig.stash[_ENV_KEY][1]


# -- hypothesis ------------------------------------------------------------------------------
# No per-example deadline (a wall-clock assertion that fails merely slow examples on a loaded
# machine) for every property test, also when tests/fuzz (whose conftest loads its own
# profiles, also without one in CI) is not part of the run.
settings.register_profile("sitemap-tui", deadline=None)
settings.load_profile("sitemap-tui")  # tests/fuzz/conftest.py may load another one after


# -- markers by kind -----------------------------------------------------------------------------
# What a test uses decides its kind; files that start servers inline are listed by name.
TUI_FIXTURES = {"snap_compare", "make_app"}
ENGINE_FIXTURES = {"httpserver", "demo_server", "demo_url", "attack_env", "case_runs"}
ENGINE_FILES = {
    "test_cli.py",  # the CLI in subprocesses against the demo server
    "test_corpus_served.py",  # serve_directory + Explorer
    "test_demo_server.py",  # DemoServer instances of its own
    "test_explorer.py",
    "test_fetch.py",  # raw asyncio TCP servers besides pytest-httpserver
}
SLOW_DIRS = {TESTS / "hostile"}  # every attack case through the CLI and the TUI: most of the run
# xdist groups: tests that share an expensive session or module fixture run on one worker
GROUPS = {
    TESTS / "hostile" / "test_attacks.py": "hostile-attack-site",
    TESTS / "hostile" / "test_tui_attacks.py": "hostile-attack-site",
    TESTS / "hostile" / "test_fault_server.py": "hostile-fault-server",
    TESTS / "tui" / "test_snapshots.py": "tui-snapshots",  # one fixed demo port
    # corpus_table.corpus_runs(): the default run validates the corpus once for both files
    TESTS / "test_corpus_rule_counts.py": "corpus-runs",
    TESTS / "test_corpus_one_fault.py": "corpus-runs",
}


def _kind(item: pytest.Item) -> str:
    path = Path(str(item.fspath))
    fixtures = set(getattr(item, "fixturenames", ()))
    if (TESTS / "tui") in path.parents or "tui" in path.stem or fixtures & TUI_FIXTURES:
        return "tui"
    if fixtures & ENGINE_FIXTURES or path.name in ENGINE_FILES or (TESTS / "hostile") in path.parents:
        return "engine"
    return "unit"


@pytest.hookimpl(tryfirst=True)  # before xdist's worker hook, which reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(_kind(item))
        path = Path(str(item.fspath))
        if any(d in path.parents for d in SLOW_DIRS):
            item.add_marker("slow")
        group = GROUPS.get(path)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


# -- sharing work between xdist workers ----------------------------------------------------------
@pytest.fixture(scope="session")
def shared_across_workers(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Callable[[Path], None]], Path]:
    """``get(name, build)``: a directory that ``build(dir)`` filled once for the whole run.

    Under xdist every worker has a session of its own; the first to ask builds (under a file
    lock in the run's common temporary directory), the others wait and reuse the result, so the
    run does the work once instead of once per worker. Serial runs just build it."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base

    def get(name: str, build: Callable[[Path], None]) -> Path:
        target = root / f"shared-{name}"
        with open(root / f"shared-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            done = target / ".complete"
            if not done.exists():
                shutil.rmtree(target, ignore_errors=True)  # a build that failed half-way
                target.mkdir()
                build(target)
                done.touch()
        return target

    return get
