from sitemap_tui.main import main

raise SystemExit(main())
