"""One or two examples for every command's ``--help``, kept in one table so a test can
check that no command goes without."""

from __future__ import annotations

import click

#: Command path (without ``leadengine``) -> example command lines.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("leadengine evaluate https://example.com",
         "leadengine batch leads.csv && leadengine export --format xlsx -o leads.xlsx",
         "leadengine serve   # the team's web workspace on http://127.0.0.1:8000"),
    "evaluate": ("leadengine evaluate https://smilebright.example",
                 "leadengine evaluate site.html --format markdown > brief.md"),
    "compare": ("leadengine compare https://smilebright.example",),
    "schema": ("leadengine schema > evaluation.schema.json",),
    "profile": ("leadengine profile https://smilebright.example",
                "leadengine profile saved-page.html --json"),
    "batch": ("leadengine batch leads.csv",
              "cat urls.txt | leadengine batch - --provider groq --retry-failed"),
    "discover": ("leadengine discover https://guide.example/gyms-pattaya -o gyms.csv",
                 "leadengine discover https://chamber.example/members --pages 20 "
                 "--max-rows 500 -o members.csv && leadengine batch members.csv"),
    "export": ("leadengine export --format xlsx -o leads.xlsx",
               "leadengine export --run 3 --min-score 70 --include-failed -o hot.csv"),
    "runs": ("leadengine runs",
             "leadengine runs --db postgresql://user@host/leads"),
    "show": ("leadengine show smilebright.example",
             "leadengine show https://smilebright.example --format markdown"),
    "serve": ("leadengine serve --no-auth --db leads.db   # this computer only",
              'leadengine users add "Aye Aye" --admin && leadengine serve --host 0.0.0.0'),
    "users": ('leadengine users add "Aye Aye" --admin',
              "leadengine users list"),
    "users add": ('leadengine users add "Somchai P."',
                  'leadengine users add "Aye Aye" --admin --db postgresql://user@host/leads'),
    "users list": ("leadengine users list",),
    "users revoke": ('leadengine users revoke "Somchai P."',),
    "models": ("leadengine models",
               "leadengine models --provider openai --json"),
    "kb": ("leadengine kb list",
           "leadengine kb search \"dental clinic bangkok\""),
    "kb search": ("leadengine kb search \"dental clinic bangkok\"",
                  "leadengine kb search \"คลินิกทันตกรรม กรุงเทพ\" --explain"),
    "kb eval": ("leadengine kb eval bench/data/qrels.jsonl",
                "leadengine kb eval qrels.jsonl --method bm25 --method hybrid --json"),
    "kb list": ("leadengine kb list --knowledge ./my-knowledge",),
    "eval-judge": ("leadengine eval-judge examples/judge-labels.jsonl",
                   "leadengine eval-judge labels.jsonl --provider groq --json"),
}


def add_examples(group: click.Group, path: str = "") -> None:
    """Put each command's examples at the end of its ``--help`` (``\\b`` keeps click
    from re-wrapping the lines)."""
    lines = EXAMPLES.get(path)
    if lines:
        group.epilog = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
    for name, command in group.commands.items():
        sub = f"{path} {name}".strip()
        if isinstance(command, click.Group):
            add_examples(command, sub)
        else:
            examples = EXAMPLES.get(sub)
            if examples:
                command.epilog = "\b\nExamples:\n" + "\n".join(f"  {e}" for e in examples)
