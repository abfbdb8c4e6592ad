from sitemap_tui.cli import main

raise SystemExit(main())
