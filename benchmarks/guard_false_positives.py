"""How much ordinary talk the injection guard keeps: every line of LoCoMo's conversations and the ordinary-statement
corpus ``benchmarks/data/ordinary_talk.txt`` judged as a conversation line (the guard that decides whether a chat
line may be kept and shown in a prompt; user and assistant lines are judged alike).

Usage (the command line is a contract)::

    python -m benchmarks.guard_false_positives --data PATH/locomo10.json [--corpus FILE] [--json OUT.json]

(``--data`` may be left out when ``$HERMES_LOCOMO_PATH`` names the file; without either only the corpus is read.)
Prints, per source and together: lines, lines kept, the share kept, and each refused line with the rule that
refused it. The bar: at least 99.9% kept.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from hermes_memory_core.trust.injection import conversation_line_allowed, find_injection

CORPUS = Path(__file__).parent / "data" / "ordinary_talk.txt"


def locomo_lines(path: Path) -> list[str]:
    """Every turn's text of every session of every LoCoMo conversation, in order."""
    lines: list[str] = []
    for conv in json.loads(path.read_text(encoding="utf-8")):
        talk = conv["conversation"]
        for key, turns in talk.items():
            if key.startswith("session_") and isinstance(turns, list):
                lines += [t["text"] for t in turns if isinstance(t, dict) and t.get("text")]
    return lines


def corpus_lines(path: Path) -> list[str]:
    """The corpus' lines (blank lines and ``#`` notes left out)."""
    return [s for s in (line.strip() for line in path.read_text(encoding="utf-8").splitlines()) if s and not s.startswith("#")]


def measure(lines: list[str]) -> dict[str, object]:
    """Lines, kept, the share kept and the refused lines (with the rule) of one source."""
    refused = [(line, getattr(find_injection(line), "rule", "other")) for line in lines
               if not conversation_line_allowed(line, "user")]
    kept = len(lines) - len(refused)
    return {"lines": len(lines), "kept": kept, "kept_share": kept / len(lines) if lines else 1.0,
            "refused": [{"line": line, "rule": rule} for line, rule in refused]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("HERMES_LOCOMO_PATH"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sources = {"corpus": corpus_lines(args.corpus)}
    if args.data:
        sources["locomo"] = locomo_lines(Path(args.data))
    started = time.perf_counter()
    report = {name: measure(lines) for name, lines in sources.items()}
    total = sum(int(str(r["lines"])) for r in report.values())
    kept = sum(int(str(r["kept"])) for r in report.values())
    report["all"] = {"lines": total, "kept": kept, "kept_share": kept / total if total else 1.0,
                     "seconds": round(time.perf_counter() - started, 2)}
    for name, r in report.items():
        print(f"{name}: {r['kept']}/{r['lines']} kept ({float(str(r['kept_share'])):.3%})")
        for item in r.get("refused", []):  # type: ignore[union-attr]
            print(f"  refused [{item['rule']}]: {item['line'][:140]}")
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if float(str(report["all"]["kept_share"])) >= 0.999 else 1


if __name__ == "__main__":
    sys.exit(main())
