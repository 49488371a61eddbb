import sys

from agent_memory.api.cli import main

sys.exit(main())
