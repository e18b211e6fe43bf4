"""Rows of the short-term tier: session messages (the ring buffer), summary chunks, the promotion queue.

It shares the metadata store's database and single writer (SQLite or PostgreSQL: the same ``?`` SQL); every
method is one transaction. Texts go through the store's codec (``seal_session`` / ``open_session``), which seals
them with ``encrypt_at_rest="all"`` and keeps them as given otherwise; session ids likewise go through
``session_key`` (under ``"all"`` an id sealed per user, its own lookup key) into every row and come back through
``session_of``, so callers always see the ids they gave. Which message opens a turn is the caller's decision
(``opens_turn``); the store hands out turn numbers atomically, so concurrent writers to one session never lose or
interleave a turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hermes_memory_core.storage.metadata import MetadataStore, RowCodec
from hermes_memory_core.types import Message  # re-exported: the store's rows are messages

__all__ = ["Message", "QueuedContent", "SessionStore", "SummaryChunk"]


@dataclass(frozen=True, slots=True)
class SummaryChunk:
    """One chunk of a session's running summary: the turns it covers and its level (1 appended, 2 compressed)."""

    id: int
    text: str
    first_turn: int
    last_turn: int
    level: int


@dataclass(frozen=True, slots=True)
class QueuedContent:
    """Content of an evicted turn waiting in the durable promotion queue."""

    id: int
    user_id: str
    session_id: str | None
    content: str
    attempts: int
    said_at: int = 0  # when the user said it (the turn's time), or when it was queued


class SessionStore:
    """Session buffers in the metadata database."""

    def __init__(self, metadata: MetadataStore) -> None:
        self.db = metadata

    def append(
        self, user_id: str, session_id: str, messages: Sequence[Message], opens_turn: Sequence[bool], now: int
    ) -> list[int]:
        """Append messages atomically; a message whose ``opens_turn`` flag is set (and the session's first)
        starts a new turn. Returns each message's turn."""
        turns: list[int] = []
        seal = self.db.codec.seal_session
        key = self._key(user_id, session_id)
        with self.db.atomic() as conn:
            conn.execute(
                "INSERT INTO sessions (user_id, session_id, created_at, last_active_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(user_id, session_id) DO UPDATE SET last_active_at = excluded.last_active_at, "
                "closed_at = NULL",
                (user_id, key, now, now),
            )
            next_turn = int(
                conn.execute(
                    "SELECT next_turn FROM sessions WHERE user_id = ? AND session_id = ?", (user_id, key)
                ).fetchone()[0]
            )
            current = next_turn - 1
            for m, opens in zip(messages, opens_turn, strict=True):
                if opens or current < 0:
                    current = next_turn
                    next_turn += 1
                conn.execute(
                    "INSERT INTO session_messages (user_id, session_id, turn, role, content, data, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (user_id, key, current, m.role, seal(user_id, session_id, m.content),
                     seal(user_id, session_id, json.dumps(m.data, ensure_ascii=False)), m.created_at or now),
                )
                turns.append(current)
            conn.execute(
                "UPDATE sessions SET next_turn = ? WHERE user_id = ? AND session_id = ?",
                (next_turn, user_id, key),
            )
        return turns

    def _key(self, user_id: str, session_id: str) -> str:
        """What the rows hold for ``user_id``'s ``session_id`` (see the codec's ``session_key``: sealed per user)."""
        key = self.db.codec.session_key(user_id, session_id)
        assert key is not None
        return key

    def _id(self, stored: str | None) -> str | None:
        """The session id a row holds (the codec's ``session_of``)."""
        return self.db.codec.session_of(stored)

    def turn_count(self, user_id: str, session_id: str) -> int:
        """Number of unsummarised turns in the buffer (no message is read)."""
        row = self.db.reader().execute(
            "SELECT count(DISTINCT turn) FROM session_messages WHERE user_id = ? AND session_id = ?",
            (user_id, self._key(user_id, session_id)),
        ).fetchone()
        return int(row[0])

    def turns(self, user_id: str, session_id: str) -> list[list[Message]]:
        """Unsummarised turns, oldest first, each a list of its messages."""
        rows = self.db.reader().execute(
            "SELECT role, content, data, created_at, turn FROM session_messages WHERE user_id = ? AND session_id = ? "
            "ORDER BY turn, id",
            (user_id, self._key(user_id, session_id)),
        ).fetchall()
        out: list[list[Message]] = []
        last = None
        opened = self.db.codec.open_session
        for role, content, data, created_at, turn in rows:
            if turn != last:
                out.append([])
                last = turn
            raw = opened(user_id, session_id, data) if data else ""
            out[-1].append(Message(role, opened(user_id, session_id, content), json.loads(raw) if raw else {},
                                   int(created_at), int(turn)))
        return out

    def chunks(self, user_id: str, session_id: str) -> list[SummaryChunk]:
        rows = self.db.reader().execute(
            "SELECT id, text, first_turn, last_turn, level FROM session_summaries WHERE user_id = ? AND session_id = ? "
            "ORDER BY first_turn, id",
            (user_id, self._key(user_id, session_id)),
        )
        opened = self.db.codec.open_session
        return [SummaryChunk(int(r[0]), opened(user_id, session_id, r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows]

    def commit_compaction(
        self,
        user_id: str,
        session_id: str,
        turn_numbers: Sequence[int],
        summary: str,
        promote: Sequence[str],
        now: int,
        archived_through: int | None = None,
        said_at: Sequence[int] | None = None,
    ) -> bool:
        """Replace the given turns by a summary chunk and queue their user content for promotion, atomically;
        with ``archived_through``, the session's archive mark moves up to that turn in the same transaction.

        ``said_at``: when each of ``promote`` was said (default ``now``): the time its facts carry.
        Returns False (and changes nothing) if the turns are gone — another worker or ``clear`` got there first.
        """
        if not turn_numbers:
            return False
        first, last = min(turn_numbers), max(turn_numbers)
        seal = self.db.codec.seal_session
        key = self._key(user_id, session_id)
        with self.db.atomic() as conn:
            present = conn.execute(
                "SELECT count(DISTINCT turn) FROM session_messages WHERE user_id = ? AND session_id = ? "
                "AND turn BETWEEN ? AND ?",
                (user_id, key, first, last),
            ).fetchone()[0]
            if present != len(set(turn_numbers)):
                return False
            conn.execute(
                "DELETE FROM session_messages WHERE user_id = ? AND session_id = ? AND turn BETWEEN ? AND ?",
                (user_id, key, first, last),
            )
            if summary:
                conn.execute(
                    "INSERT INTO session_summaries (user_id, session_id, text, first_turn, last_turn, level, created_at) "
                    "VALUES (?, ?, ?, ?, ?, 1, ?)",
                    (user_id, key, seal(user_id, session_id, summary), first, last, now),
                )
            conn.executemany(
                "INSERT INTO promotion_queue (user_id, session_id, content, created_at) VALUES (?, ?, ?, ?)",
                _queued_rows(user_id, key, session_id, promote, said_at, now, seal),
            )
            if archived_through is not None:
                conn.execute(
                    "UPDATE sessions SET archived_turn = ? WHERE user_id = ? AND session_id = ? AND archived_turn < ?",
                    (archived_through, user_id, key, archived_through),
                )
        return True

    # ------------------------------------------------------------------ the conversation archive
    def archived_turn(self, user_id: str, session_id: str) -> int:
        """The last turn of the session kept as conversation memories (and queued for promotion); -1 for none."""
        row = self.db.reader().execute(
            "SELECT archived_turn FROM sessions WHERE user_id = ? AND session_id = ?", (user_id, self._key(user_id, session_id))
        ).fetchone()
        return -1 if row is None else int(row[0])

    def mark_archived(self, user_id: str, session_id: str, through: int, promote: Sequence[str], now: int,
                      said_at: Sequence[int] | None = None) -> bool:
        """Move the session's archive mark up to turn ``through`` and queue ``promote`` (the user's words of the
        turns it passes; ``said_at``: when each was said, default ``now``) for promotion, atomically. False (nothing
        queued) when the mark was already there."""
        seal = self.db.codec.seal_session
        key = self._key(user_id, session_id)
        with self.db.atomic() as conn:
            moved = conn.execute(
                "UPDATE sessions SET archived_turn = ? WHERE user_id = ? AND session_id = ? AND archived_turn < ?",
                (through, user_id, key, through),
            ).rowcount
            if moved:
                conn.executemany(
                    "INSERT INTO promotion_queue (user_id, session_id, content, created_at) VALUES (?, ?, ?, ?)",
                    _queued_rows(user_id, key, session_id, promote, said_at, now, seal),
                )
        return bool(moved)

    def unarchived(
        self, now: int, idle_seconds: int, user_id: str | None = None, except_session: str | None = None
    ) -> list[tuple[str, str]]:
        """Sessions holding buffered turns past their archive mark that have ended: closed, or idle for
        ``idle_seconds``; with ``user_id``, every other session of that user last active at or before ``now`` (a user
        who opened a new session at ``now`` left the others, also one written in that same second: times are whole
        seconds)."""
        where = "s.closed_at IS NOT NULL OR s.last_active_at < ?"
        args: list[Any] = [now - idle_seconds]
        if user_id is not None:
            where = "s.user_id = ? AND s.session_id <> ? AND s.last_active_at <= ?"
            args = [user_id, self._key(user_id, except_session) if except_session else "", now]
        # a session whose turns are all at or below its mark (next_turn - 1 is its last turn) has none past it: the
        # row says so without a probe of its messages (a heavy user has hundreds of archived sessions, all read on
        # each new session's first turn)
        rows = self.db.reader().execute(
            f"SELECT s.user_id, s.session_id FROM sessions s WHERE ({where}) AND s.next_turn - 1 > s.archived_turn "
            "AND EXISTS (SELECT 1 FROM session_messages m WHERE m.user_id = s.user_id AND m.session_id = s.session_id "
            "AND m.turn > s.archived_turn)",
            args,
        )
        return [(r[0], self._key_to_id(r[1])) for r in rows]

    def replace_chunks(
        self, user_id: str, session_id: str, chunk_ids: Sequence[int], text: str, now: int
    ) -> bool:
        """Replace the given summary chunks by one compressed chunk (level 2). False if they changed meanwhile."""
        if not chunk_ids:
            return False
        key = self._key(user_id, session_id)
        with self.db.atomic() as conn:
            marks = ",".join("?" * len(chunk_ids))
            rows = conn.execute(
                f"SELECT min(first_turn), max(last_turn), count(*) FROM session_summaries "
                f"WHERE user_id = ? AND session_id = ? AND id IN ({marks})",
                (user_id, key, *chunk_ids),
            ).fetchone()
            if rows[2] != len(chunk_ids):
                return False
            conn.execute(f"DELETE FROM session_summaries WHERE id IN ({marks})", tuple(chunk_ids))
            conn.execute(
                "INSERT INTO session_summaries (user_id, session_id, text, first_turn, last_turn, level, created_at) "
                "VALUES (?, ?, ?, ?, ?, 2, ?)",
                (user_id, key, self.db.codec.seal_session(user_id, session_id, text), rows[0], rows[1], now),
            )
        return True

    def last_message(self, user_id: str, session_id: str) -> tuple[int, int, Message] | None:
        """The session's last buffered message: ``(turn, index in its turn, message)``, or None."""
        key = self._key(user_id, session_id)
        reader = self.db.reader()
        row = reader.execute(
            "SELECT role, content, data, created_at, turn FROM session_messages WHERE user_id = ? AND session_id = ? "
            "ORDER BY turn DESC, id DESC LIMIT 1", (user_id, key),
        ).fetchone()
        if row is None:
            return None
        role, content, data, created_at, turn = row
        index = int(reader.execute(
            "SELECT count(*) FROM session_messages WHERE user_id = ? AND session_id = ? AND turn = ?",
            (user_id, key, turn),
        ).fetchone()[0]) - 1
        opened = self.db.codec.open_session
        raw = opened(user_id, session_id, data) if data else ""
        message = Message(role, opened(user_id, session_id, content), json.loads(raw) if raw else {}, int(created_at),
                          int(turn))
        return int(turn), index, message

    def rewrite_message(self, user_id: str, session_id: str, turn: int, index: int, content: str,
                        data: dict[str, Any]) -> None:
        """Replace the content and payload of the ``index``-th message of ``turn`` (its place stays)."""
        key = self._key(user_id, session_id)
        seal = self.db.codec.seal_session
        with self.db.atomic() as conn:
            rows = conn.execute(
                "SELECT id FROM session_messages WHERE user_id = ? AND session_id = ? AND turn = ? ORDER BY id",
                (user_id, key, turn),
            ).fetchall()
            if 0 <= index < len(rows):
                conn.execute("UPDATE session_messages SET content = ?, data = ? WHERE id = ?",
                             (seal(user_id, session_id, content),
                              seal(user_id, session_id, json.dumps(data, ensure_ascii=False)), rows[index][0]))

    def blank_message(self, user_id: str, session_id: str, turn: int, index: int) -> bool:
        """Take the words of one buffered message out (the ``index``-th message of ``turn``): its content and payload
        become empty, its place in the turn stays (so its neighbours keep their positions and ids), and a queued
        promotion entry of the session holding its words goes. False when there is no such message.

        What a hard delete of a conversation memory does to the buffer it came from: the words are not archived,
        promoted or shown again, through session end, reopen or reconcile."""
        key = self._key(user_id, session_id)
        seal, opened = self.db.codec.seal_session, self.db.codec.open_session
        with self.db.atomic() as conn:
            rows = conn.execute(
                "SELECT id, content FROM session_messages WHERE user_id = ? AND session_id = ? AND turn = ? ORDER BY id",
                (user_id, key, turn),
            ).fetchall()
            if not 0 <= index < len(rows):
                return False
            row_id, content = rows[index]
            words = " ".join(opened(user_id, session_id, content).split())
            conn.execute("UPDATE session_messages SET content = ?, data = ? WHERE id = ?",
                         (seal(user_id, session_id, ""), seal(user_id, session_id, "{}"), row_id))
            if words:
                queued = conn.execute("SELECT id, content FROM promotion_queue WHERE user_id = ? AND session_id = ?",
                                      (user_id, key)).fetchall()
                gone = [(qid,) for qid, text in queued if words in " ".join(opened(user_id, session_id, text).split())]
                conn.executemany("DELETE FROM promotion_queue WHERE id = ?", gone)
        return True

    def clear(self, user_id: str, session_id: str) -> None:
        key = self._key(user_id, session_id)
        with self.db.atomic() as conn:
            for table in ("session_messages", "session_summaries", "promotion_queue"):
                conn.execute(f"DELETE FROM {table} WHERE user_id = ? AND session_id = ?", (user_id, key))

    def overflowing(self, ring_size: int) -> list[tuple[str, str]]:
        rows = self.db.reader().execute(
            "SELECT user_id, session_id FROM session_messages GROUP BY user_id, session_id "
            "HAVING count(DISTINCT turn) > ?",
            (ring_size,),
        )
        return [(r[0], self._key_to_id(r[1])) for r in rows]

    def queued(self, limit: int = 64) -> list[QueuedContent]:
        """The oldest entries of the promotion queue."""
        rows = self.db.reader().execute(
            "SELECT id, user_id, session_id, content, attempts, created_at FROM promotion_queue ORDER BY id LIMIT ?",
            (limit,),
        )
        opened = self.db.codec.open_session
        out = []
        for row_id, user, stored, content, attempts, said in rows:
            session = self._id(stored)
            out.append(QueuedContent(int(row_id), user, session, opened(user, session, content), int(attempts),
                                     int(said or 0)))
        return out

    def dequeue(self, ids: Sequence[int]) -> None:
        with self.db.atomic() as conn:
            conn.executemany("DELETE FROM promotion_queue WHERE id = ?", [(i,) for i in ids])

    def retry_later(self, ids: Sequence[int], max_attempts: int) -> None:
        with self.db.atomic() as conn:
            conn.executemany("UPDATE promotion_queue SET attempts = attempts + 1 WHERE id = ?", [(i,) for i in ids])
            conn.execute("DELETE FROM promotion_queue WHERE attempts >= ?", (max_attempts,))

    def close_session(self, user_id: str, session_id: str, now: int) -> None:
        with self.db.atomic() as conn:
            conn.execute(
                "UPDATE sessions SET closed_at = ? WHERE user_id = ? AND session_id = ?", (now, user_id, self._key(user_id, session_id))
            )

    def closed_sessions(self, now: int, idle_seconds: int) -> set[tuple[str, str]]:
        rows = self.db.reader().execute(
            "SELECT user_id, session_id FROM sessions WHERE closed_at IS NOT NULL OR last_active_at < ?",
            (now - idle_seconds,),
        )
        return {(r[0], self._key_to_id(r[1])) for r in rows}

    def _key_to_id(self, stored: str) -> str:
        session = self._id(stored)
        assert session is not None
        return session

    def recode(self, old: RowCodec, new: RowCodec) -> int:
        """Re-seal every session row (messages and their data, summaries, queued promotions) and every session id
        they hold from ``old`` to ``new``, in the open transaction or a new one. A session whose id changes form
        gets a new ``sessions`` row first, its rows follow, then the old one goes (no foreign key is ever left
        dangling). Returns how many rows changed."""
        changed = 0
        with self.db.atomic() as conn:
            moved: list[tuple[str, str]] = []
            for user, stored in conn.execute("SELECT user_id, session_id FROM sessions").fetchall():
                fresh_key = new.session_key(user, old.session_of(stored))
                if fresh_key != stored:
                    conn.execute(
                        "INSERT INTO sessions (user_id, session_id, created_at, last_active_at, closed_at, next_turn, "
                        "archived_turn) SELECT user_id, ?, created_at, last_active_at, closed_at, next_turn, archived_turn "
                        "FROM sessions WHERE user_id = ? AND session_id = ?",
                        (fresh_key, user, stored),
                    )
                    moved.append((user, stored))
            for table, columns in (("session_messages", ("content", "data")), ("session_summaries", ("text",)),
                                   ("promotion_queue", ("content",))):
                rows = conn.execute(f"SELECT id, user_id, session_id, {', '.join(columns)} FROM {table}").fetchall()
                for row_id, user, stored, *values in rows:
                    session = old.session_of(stored)
                    fresh = [new.seal_session(user, session, old.open_session(user, session, v)) for v in values]
                    conn.execute(
                        f"UPDATE {table} SET session_id = ?, {', '.join(c + ' = ?' for c in columns)} WHERE id = ?",
                        (new.session_key(user, session), *fresh, row_id),
                    )
                changed += len(rows)
            conn.executemany("DELETE FROM sessions WHERE user_id = ? AND session_id = ?", moved)
            changed += len(moved)
        return changed


def _queued_rows(user_id: str, key: str, session_id: str, promote: Sequence[str], said_at: Sequence[int] | None,
                 now: int, seal: Any) -> list[tuple[str, str, str, int]]:
    """The promotion queue's rows for ``promote``: each sealed, with the time it was said (``now`` when unknown)."""
    times = list(said_at) if said_at is not None else [now] * len(promote)
    return [(user_id, key, seal(user_id, session_id, text), int(at or now))
            for text, at in zip(promote, times, strict=True) if text.strip()]
