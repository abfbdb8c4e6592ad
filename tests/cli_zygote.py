"""The zygote of tests/cli_process.py: imports the CLI once, then forks one child per run.

Run as ``python -c SOURCE SOCKET_PATH``. A request is one SOCK_SEQPACKET message: JSON
(arguments, environment, working folder, whether to lead a new session) with the run's stdin,
stdout and stderr as descriptors. The answer is the child's pid, then, once it ended, its wait
status and rusage. Single-threaded: a thread of the zygote would be missing, with whatever lock it
held, in every child.
"""

import contextlib
import json
import os
import selectors
import signal
import socket
import sys

del sys.path[0]  # "" from -c: the zygote's folder; each child puts its own working folder there

# what a headless command imports to do its work, so that a child starts with it done
import anyio._backends._asyncio  # noqa: E402,F401  (httpcore's first asynchronous request)
import httpx  # noqa: E402,F401
import lxml.etree  # noqa: E402,F401

import sitemap_tui.cli.access  # noqa: E402,F401
import sitemap_tui.cli.audit  # noqa: E402,F401
import sitemap_tui.cli.cache  # noqa: E402,F401
import sitemap_tui.cli.diff  # noqa: E402,F401
import sitemap_tui.cli.discover  # noqa: E402,F401
import sitemap_tui.cli.explorer  # noqa: E402,F401
import sitemap_tui.cli.open  # noqa: E402,F401
import sitemap_tui.cli.rules  # noqa: E402,F401
import sitemap_tui.cli.stats  # noqa: E402,F401
import sitemap_tui.cli.urls  # noqa: E402,F401
import sitemap_tui.cli.validate  # noqa: E402,F401
import sitemap_tui.main  # noqa: E402,F401


def child(request: dict, fds: list[int], inherited: list) -> None:
    for owner in inherited:  # through their objects: closed by number, the objects closed them again at exit
        owner.close() if hasattr(owner, "close") else os.close(owner)
    if request["new_session"]:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # what the interpreter sets up at its start from the run's environment and descriptors
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.stdout.reconfigure(line_buffering=os.isatty(1))
    sys.path.insert(0, request["cwd"])  # as `python -m` does
    import runpy

    sys.argv = ["-m", *request["args"]]  # runpy puts the module's file in [0], as -m does
    # SystemExit from the program ends this process as it ends a real one: atexit, flushed stdio
    runpy.run_module("sitemap_tui", run_name="__main__", alter_sys=True)
    sys.exit(0)


def serve(server: socket.socket) -> None:
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ, "accept")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
    waiting: dict[int, tuple[int, socket.socket, bool]] = {}  # pidfd: pid, the request's connection, new session
    while True:
        for key, _ in selector.select():
            if key.data == "parent":  # the test process ended (EOF) or wrote nothing it should
                return
            if key.data == "accept":
                conn, _ = server.accept()
                fds: list[int] = []
                try:
                    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                    request = json.loads(message)
                    pid = os.fork()
                    if pid == 0:  # it leaves by SystemExit (or KeyboardInterrupt), never into this loop
                        try:
                            child(request, fds, [server, conn, selector, *waiting,
                                                 *(c for _, c, _ in waiting.values())])
                        except Exception:  # uncaught in the program: as an interpreter ends on one
                            sys.excepthook(*sys.exc_info())
                            sys.exit(1)
                    conn.send(str(pid).encode())
                except Exception:  # a request cut short or malformed ends that request only
                    conn.close()
                    for fd in fds:
                        os.close(fd)
                    continue
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                waiting[pidfd] = (pid, conn, request["new_session"])
                selector.register(pidfd, selectors.EVENT_READ, "child")
                continue
            pidfd = key.fd
            pid, conn, led = waiting.pop(pidfd)
            selector.unregister(pidfd)
            os.close(pidfd)
            _, status, usage = os.wait4(pid, 0)
            if led:
                with contextlib.suppress(OSError):  # what the run left running in its session's group
                    os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):  # (a caller that went away)
                conn.send(json.dumps({"status": status, "cpu": usage.ru_utime + usage.ru_stime,
                                      "maxrss_kb": usage.ru_maxrss}).encode())
            conn.close()


def main() -> None:
    path = sys.argv[1]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(path)
    server.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    zygote = os.getpid()
    try:
        serve(server)
    finally:
        if os.getpid() == zygote:  # (a child leaves by SystemExit through here too)
            with contextlib.suppress(OSError):
                os.unlink(path)
                os.rmdir(os.path.dirname(path))


main()
