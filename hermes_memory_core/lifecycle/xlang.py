"""Other-language key terms for memories, from the host's model, written in the background.

Each long-term or permanent memory, and each conversation memory (a short-term memory kept from a chat, see
:mod:`~hermes_memory_core.lifecycle.conversation`), is given key terms in the other language than its own (a
Chinese memory English terms, an English one Chinese terms), stored with it (``memory_entries.xlang_terms``,
sealed like the content for sealed tiers) and indexed beside its own words, so a question in the other language
finds it by the keyword leg too. The terms belong to the memory's current version: a new version drops them and
gets new ones; re-indexing, ``optimize()`` and export/restore keep them (they are a column of the row); purge
erases them with the row. Other short-term memories get none (they expire).

:class:`TermWriter` runs on the background worker only, never on a caller's thread. A sweep asks the model
about each active memory still without terms: one call per long-term or permanent memory; conversation
memories of one session and language are asked together, up to :data:`~hermes_memory_core.retrieval.
translation.BATCH_NOTES` in one call (so at most one call per memory, fewer for a chat). A memory is asked at
most once per process (a model that answers nothing usable is not asked again about it until the next start),
and a sweep stops at the first call that fails or times out, so a failing or hanging model costs at most one
timeout per sweep. Without a model, or with ``llm_translation`` off, nothing is asked and search is as offline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from hermes_memory_core.engine.faces import WithParts, WithReads, WithWrites
from hermes_memory_core.llm import LLM
from hermes_memory_core.retrieval.translation import BATCH_CHARS, BATCH_NOTES, Translator, other_language
from hermes_memory_core.text.language import Language, language_of
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["XLANG_TIERS", "TermWriter"]


class TermStore(WithParts, WithReads, WithWrites, Protocol):
    """What the key-term sweep uses of the engine: state and model pool, memories lacking terms, the terms' write."""


#: Tiers whose memories get other-language key terms (and conversation memories, in the short-term tier).
XLANG_TIERS = (MemoryType.LONG_TERM.value, MemoryType.PERMANENT.value)
_SHORT = (MemoryType.SHORT_TERM.value,)
#: Memories one sweep looks at (the next write's sweep goes on).
_SWEEP = 1000


class TermWriter:
    """Gives memories other-language key terms from the host's model (run by the background worker).

    Args:
        engine: The open store.
        llm_for: The host model for a user's session (None: no model, nothing is done).
    """

    def __init__(self, engine: TermStore, llm_for: Callable[[str, str | None], LLM | None]) -> None:
        self.engine = engine
        self.llm_for = llm_for
        self._tried: set[tuple[str, int]] = set()
        self._translators: dict[int, Translator] = {}
        self._lock = threading.Lock()

    def _translator(self, llm: LLM) -> Translator:
        with self._lock:
            found = self._translators.get(id(llm))
            if found is None or found.llm is not llm:
                found = Translator(llm, self.engine.parts.config.llm_timeout_seconds, pool=self.engine.parts.model_pool)
                self._translators = {id(llm): found}  # one host model at a time in practice
            return found

    def sweep(self) -> int:
        """Ask the model for the key terms of memories without them (see the module docstring). Returns how many
        memories got terms."""
        engine = self.engine
        if engine.parts.closed or not engine.parts.config.llm_translation:
            return 0
        done = 0
        lacking = engine.reads.lacking_xlang_terms(XLANG_TIERS, limit=_SWEEP)
        said = [(rec, lang) for rec, lang in engine.reads.lacking_xlang_terms(_SHORT, limit=_SWEEP)
                if rec.is_conversation]
        groups: dict[tuple[str, str | None, Language], list[tuple[MemoryRecord, Language]]] = {}  # open batches
        asks: list[list[tuple[MemoryRecord, Language]]] = []
        for rec, lang in [*lacking, *said]:
            if (rec.id, rec.version) in self._tried:
                continue
            source = "zh" if lang == "zh" else "en" if lang == "en" else language_of(rec.content)
            target = other_language(source)
            if not rec.is_conversation:
                asks.append([(rec, target)])
                continue
            key = (rec.user_id, rec.session_id, target)
            group = groups.get(key)
            if (group is None or len(group) >= BATCH_NOTES
                    or sum(len(r.content) for r, _ in group) + len(rec.content) > BATCH_CHARS):
                group = groups[key] = []
                asks.append(group)
            group.append((rec, target))
        for batch in asks:
            if engine.parts.closed:
                break
            first = batch[0][0]
            llm = self.llm_for(first.user_id, first.session_id)
            if llm is None:
                continue
            self._tried.update((rec.id, rec.version) for rec, _ in batch)
            found, answered = self._translator(llm).batch_terms([rec.content for rec, _ in batch], batch[0][1])
            if not answered:
                break  # failing or hanging: the rest waits for the next sweep
            for (rec, _), terms in zip(batch, found, strict=True):
                if not terms:
                    continue  # junk: this memory is not asked again in this process
                with engine.parts.write_lock:
                    if engine.parts.closed:
                        return done
                    if engine.writes.set_xlang_terms(rec.id, rec.version, "\n".join(terms)):
                        done += 1
        return done
