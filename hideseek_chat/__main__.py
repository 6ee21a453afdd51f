from hideseek_chat.cli import main

raise SystemExit(main())
