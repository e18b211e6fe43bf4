"""Other-language key terms for memories, from the host's model, written in the background.

Each long-term or permanent memory is given key terms in the other language than its own (a Chinese memory
English terms, an English one Chinese terms), stored with it (``memory_entries.xlang_terms``, sealed like the
content for sealed tiers) and indexed beside its own words, so a question in the other language finds it by
the keyword leg too. The terms belong to the memory's current version: a new version drops them and gets new
ones; re-indexing, ``optimize()`` and export/restore keep them (they are a column of the row); purge erases
them with the row.

:class:`TermWriter` runs on the background worker only, never on a caller's thread. A sweep asks the model
about each active memory still without terms, one call per memory; a memory is asked at most once per
process (a model that answers nothing usable is not asked again about it until the next start), and a sweep
stops at the first call that fails or times out, so a failing or hanging model costs at most one timeout per
sweep. Without a model, or with ``llm_translation`` off, nothing is asked and search is as offline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.llm import LLM
from hermes_memory_core.retrieval.translation import Translator, other_language
from hermes_memory_core.text.language import language_of
from hermes_memory_core.types import MemoryType

__all__ = ["XLANG_TIERS", "TermWriter"]

#: Tiers whose memories get other-language key terms.
XLANG_TIERS = (MemoryType.LONG_TERM.value, MemoryType.PERMANENT.value)
#: Memories one sweep looks at (the next write's sweep goes on).
_SWEEP = 1000


class TermWriter:
    """Gives memories other-language key terms from the host's model (run by the background worker).

    Args:
        engine: The open store.
        llm_for: The host model for a user's session (None: no model, nothing is done).
    """

    def __init__(self, engine: MemoryEngine, llm_for: Callable[[str, str | None], LLM | None]) -> None:
        self.engine = engine
        self.llm_for = llm_for
        self._tried: set[tuple[str, int]] = set()
        self._translators: dict[int, Translator] = {}
        self._lock = threading.Lock()

    def _translator(self, llm: LLM) -> Translator:
        with self._lock:
            found = self._translators.get(id(llm))
            if found is None or found.llm is not llm:
                found = Translator(llm, self.engine.config.llm_timeout_seconds, pool=self.engine.model_pool)
                self._translators = {id(llm): found}  # one host model at a time in practice
            return found

    def sweep(self) -> int:
        """Ask the model for the key terms of memories without them (see the module docstring). Returns how many
        memories got terms."""
        engine = self.engine
        if engine.closed or not engine.config.llm_translation:
            return 0
        done = 0
        for rec, lang in engine.metadata.lacking_xlang_terms(XLANG_TIERS, limit=_SWEEP):
            if engine.closed:
                break
            key = (rec.id, rec.version)
            llm = self.llm_for(rec.user_id, rec.session_id)
            if llm is None or key in self._tried:
                continue
            self._tried.add(key)
            source = "zh" if lang == "zh" else "en" if lang == "en" else language_of(rec.content)
            terms, answered = self._translator(llm).key_terms(rec.content, other_language(source))
            if not answered:
                break  # failing or hanging: the rest waits for the next sweep
            if not terms:
                continue  # junk: this memory is not asked again in this process
            with engine.write_lock:
                if engine.closed:
                    break
                if engine.metadata.set_xlang_terms(rec.id, rec.version, "\n".join(terms)):
                    done += 1
        return done
