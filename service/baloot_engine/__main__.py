"""Run the server: ``python -m baloot_engine [flags]`` (the same as ``baloot-server``)."""

import sys

from baloot_engine.server.app import main

if __name__ == "__main__":
    sys.exit(main())
