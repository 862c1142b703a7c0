"""The seed's entry point: ``python main.py https://example.com`` prints the evaluation JSON."""

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("leadengine") is None:
    # A source checkout that was never installed: use its src/ folder. Only then; an
    # installed package whose dependency is missing must say so, not fall back.
    sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

try:
    from leadengine.cli import seed_main
except ImportError as exc:
    missing = exc.name or str(exc).splitlines()[0]
    sys.exit(f"error: a package the engine needs is missing ({missing}): "
             "run `pip install .` in this folder")

if __name__ == "__main__":
    seed_main()
