import sys

try:
    from sitemap_tui.main import main
except KeyboardInterrupt:  # Ctrl-C while the program's modules load: no traceback for that either
    print("sitemap-tui: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
