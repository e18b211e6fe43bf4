"""Reading LoCoMo-format files: turns, session dates, questions, and repair of malformed evidence ids."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["Conversation", "Question", "Turn", "load_conversations", "parse_range", "repair_evidence"]

CATEGORY_NAMES = {4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain"}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    timestamp: int

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question]
    last_date: int
    skipped_evidence: int


def parse_session_date(text: str) -> int:
    """'1:56 pm on 8 May, 2023' → Unix seconds (UTC)."""
    cleaned = re.sub(r"\s+", " ", text.strip())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y"):
        try:
            return int(datetime.strptime(cleaned, fmt).replace(tzinfo=UTC).timestamp())
        except ValueError:
            continue
    raise ValueError(f"unrecognised session date {text!r}")


_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def repair_evidence(raw: Any) -> list[str]:
    """Normalise evidence ids: split 'D8:6; D9:17' and 'D9:1 D4:4', fix 'D:11:26' and 'D30:05'."""
    items = raw if isinstance(raw, list) else [raw]
    out = [f"D{int(m.group(1))}:{int(m.group(2))}" for item in items for m in _ID.finditer(str(item))]
    return list(dict.fromkeys(out))


def parse_range(spec: str) -> list[int]:
    """'0-4' → [0..4]; '0,2,5-6' → [0, 2, 5, 6]."""
    out: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def load_conversations(path: str | Path, indices: list[int]) -> list[Conversation]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    convs: list[Conversation] = []
    for idx in indices:
        sample = data[idx]
        conv = sample["conversation"]
        turns: list[Turn] = []
        n = 1
        last = 0
        while f"session_{n}" in conv:
            date = parse_session_date(conv[f"session_{n}_date_time"])
            last = max(last, date)
            for j, t in enumerate(conv[f"session_{n}"]):
                turns.append(Turn(t["dia_id"].strip(), t["speaker"], t["text"], n, date + 30 * j))
            n += 1
        known = {t.dia_id for t in turns}
        questions: list[Question] = []
        skipped = 0
        for qa in sample["qa"]:
            if qa.get("category") not in CATEGORY_NAMES:
                continue
            ev = repair_evidence(qa.get("evidence", []))
            valid = tuple(e for e in ev if e in known)
            skipped += len(ev) - len(valid)
            if valid:
                questions.append(Question(qa["question"], int(qa["category"]), valid))
        convs.append(Conversation(str(sample.get("sample_id", idx)), turns, questions, last, skipped))
    return convs
