"""Docs that are generated from the code are up to date; the README's commands are real."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO


def test_generated_docs_are_current() -> None:
    result = subprocess.run([sys.executable, str(REPO / "docs" / "generate.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_readme_first_screen_has_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:30])
    blocks = re.findall(r"```bash\n(.*?)\n```", first_screen, re.S)
    assert blocks[:2] == ["pip install . && python main.py examples/smile-bright-dental/index.html",
                          "pip install -e '.[dev]' && python -m pytest"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert blocks[1] in ci


def test_code_is_ruff_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "bench",
                             "docs", "main.py"], capture_output=True, text=True, cwd=REPO,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
