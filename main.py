"""The seed's entry point: ``python main.py https://example.com`` prints the evaluation JSON."""

import sys
from pathlib import Path

try:
    from leadengine.cli import seed_main
except ImportError:  # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
    from leadengine.cli import seed_main

if __name__ == "__main__":
    seed_main()
