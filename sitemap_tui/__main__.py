import sys

try:
    from sitemap_tui.main import main
except KeyboardInterrupt:  # Ctrl-C while the program's modules load: no traceback for that either
    try:  # (a closed stderr is None: print would write to stdout, into the data)
        if sys.stderr is not None:
            print("sitemap-tui: interrupted (Ctrl-C)", file=sys.stderr)
    except OSError:
        pass
    raise SystemExit(130) from None

raise SystemExit(main())
