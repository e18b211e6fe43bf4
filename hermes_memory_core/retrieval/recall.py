"""Recall: what a chat turn is given, decided in one room over search's candidates and scores.

Search (:mod:`~hermes_memory_core.retrieval.search`) generates candidates and scores them; the recall policy's
rules say which lines may answer at all (:mod:`~hermes_memory_core.retrieval.recall_policy`) and in which order they
stand (:mod:`~hermes_memory_core.retrieval.ordering`). :class:`Recaller` runs them in this order, one place a reader
can follow:

1. the gate: a filler asks nothing (the user's standing reply preferences still come), permanent facts only for the
   questions that need them; a long query is judged on the question it ends with;
2. one search, with lines the user only asked and the assistant's answers to them left out before fusion;
3. what may be shown: the read-time guard's verdict, no reply that did not know, no line said twice, a restating
   reply handing its place to its source (read on in the same ranking when they leave the list short);
4. what belongs first: the reply to the same question asked before, the user's current fact on the question's topic,
   a system of record's value above a claim on its subject, the user's own lines before the assistant's for a
   question about them;
5. silence: nothing when the best match is below the floor, or only a little above it with no line about what is asked;
6. the cut: lines close to the best, weak lines that share nothing with the question left out;
7. with the host's model, where the rules were unsure, the model's judgement of which lines help, or none
   (:mod:`~hermes_memory_core.retrieval.relevance`); without its verdict, the shipped offline relevance model's
   (``recall_relevance_threshold``; :mod:`~hermes_memory_core.retrieval.relevance_model`), in the same unsure cases
   (not where the user's fact on the question's topic came first, nor where the caller set its own floor,
   ``min_score``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from hermes_memory_core import validation as v
from hermes_memory_core.embedding.window import ask_chars
from hermes_memory_core.lifecycle.classifier import fact_key_of
from hermes_memory_core.lifecycle.updates import topic as subject_family
from hermes_memory_core.llm import LLM
from hermes_memory_core.rendering import prompt_safe_hits
from hermes_memory_core.retrieval.gate import leading_topic, needs_permanent, question_topics, should_recall
from hermes_memory_core.retrieval.ordering import (
    ADDRESSED,
    about_user_alone,
    asks_about_talk,
    close_to_best,
    on_topic,
    on_topic_first,
    said_about_first,
    speaker_first,
)
from hermes_memory_core.retrieval.recall_policy import (
    covers_focus,
    distinct,
    focus_terms,
    without_restated_lines,
    without_unanswering,
    without_weak_lines,
)
from hermes_memory_core.retrieval.relevance import RelevanceJudge
from hermes_memory_core.retrieval.relevance_model import default_model
from hermes_memory_core.retrieval.search import NO_FLOOR, Searcher, about_the_user
from hermes_memory_core.text.answer_types import answers_none, expected_value, holds_value
from hermes_memory_core.text.fact_topics import asks_a_kind, names_a_member
from hermes_memory_core.text.language import language_of
from hermes_memory_core.text.questions import asking_part, is_question, question_key
from hermes_memory_core.trust.authority import fact_subject, outranked_claims_below
from hermes_memory_core.trust.injection_preference import PREFERENCE_KEYS, current_preferences
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryHit, MemoryType

__all__ = ["CROSS_FOCUS_MARGIN", "FOCUS_MARGIN", "Recaller"]


#: Above the relevance floor, a match this much weaker than a clear one (calibrated z) is kept only when a line
#: shares a focus word with the question (:func:`~hermes_memory_core.retrieval.recall_policy.covers_focus`).
FOCUS_MARGIN = 2.0

#: A line in the other language than the question's, which shares no focus word with it, is kept on a match this much
#: above the relevance floor.
CROSS_FOCUS_MARGIN = 1.0


def _topic_of(text: str) -> str:
    """The fact topic ``text`` states ("boss" of "我的老板叫王强"), "" for none."""
    return (fact_key_of(text) or "").split("_", 1)[0]


def _said_at(hit: MemoryHit) -> int:
    """When a recalled memory's words were said: a conversation line's time, a fact's current version's."""
    return hit.created_at if hit.is_conversation or hit.dialogue else hit.record.updated_at


class Recaller:
    """Gated recall for chat turns over one searcher (see :meth:`MemoryProvider.recall`).

    Args:
        searcher: The store's searcher (its engine's lookups are recall's too).
    """

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self.engine = searcher.engine
        self.judge = RelevanceJudge(self.engine.config.recall_judge_timeout_seconds, self.engine.model_pool)

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        top_k: int = 5,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        now: float | None = None,
        min_score: float | None = None,
        who: Caller,
        llm: LLM | None = None,
    ) -> list[MemoryHit]:
        """Gated recall for a chat turn (see :meth:`MemoryProvider.recall`); an over-long query is recalled on its
        beginning and its end (``max_content_chars`` characters in all: the part that asks is at its end; a chat
        turn never fails on a long message). The user's standing
        preferences about replies come first on every turn, fillers included, beside the ``top_k`` recalled."""
        self.engine.need_open()
        query = ask_chars(v.check_text(query, "query"), self.engine.config.max_content_chars)
        k = v.check_top_k(top_k)
        floor = self.engine.config.recall_min_score if min_score is None else v.check_score(min_score, "min_score")
        user_id = v.check_user_id(user_id)  # a filler asks nothing of the store, but a bad argument is still an error
        plain = session_id is None and not tags and time_range is None
        standing = self._standing(user_id, now) if plain else []
        # a long query is judged on the question it ends with (search matches it on both)
        asked = asking_part(query) or query
        if not should_recall(asked):  # a filler asks nothing else of the store
            return standing
        permanent = needs_permanent(asked) and who.read_permanent
        tiers = [MemoryType.SHORT_TERM, MemoryType.LONG_TERM] + ([MemoryType.PERMANENT] if permanent else [])
        # the floor is applied here, not in search: a keyed fact on the question's topic is its answer however
        # its current version is worded ("用户从北京搬到上海了" for "用户住在哪里？")
        about_talk = asks_about_talk(asked)  # "what did I say about…": the lines said are the evidence
        addressed = bool(ADDRESSED.search(asked))  # "what did you suggest?": the assistant's lines are the evidence
        # search is given the question alone (it would find the same in the whole query)
        request = replace(self.searcher.request(asked, user_id, min(2 * k, v.MAX_TOP_K), tiers, session_id, tags,
                                                time_range, now, None if floor is None else NO_FLOOR, None, who),
                          answers_only=not about_talk, own_words_only=not about_talk and not addressed)
        rest: list[Callable[[int], list[MemoryHit]]] = []
        found = self.searcher.execute(request, who, llm, rest)
        # what the read-time guard withholds from prompts leaves before the cut, so it never takes the place of a
        # memory that may be shown; so do what the user asked before (it holds no answer; its reply may), a reply
        # that did not know and a line said again: none takes an answer's place, nor passes the floor for it (asked
        # once more, for as many again, while they filled the list)

        def usable(found: list[MemoryHit]) -> list[MemoryHit]:
            return distinct(without_unanswering(prompt_safe_hits(found), about_talk))

        hits = usable(found)
        legs = self.searcher.leg_size(request.k)
        for _ in range(2):
            if not len(hits) < len(found) == request.k < v.MAX_TOP_K:
                break
            wider = min(request.k + 2 * (len(found) - len(hits)), v.MAX_TOP_K)
            if rest and self.searcher.leg_size(wider) == legs:  # the same candidates, ranked the same: read on
                found = found + rest[0](wider - request.k)
                request = replace(request, k=wider)
            else:
                request, rest = replace(request, k=wider), []
                found = self.searcher.execute(request, who, llm, rest)
            hits = usable(found)
        # the reply the user got when they asked this same question before answers it now (or the line it restated)
        reply = self._reply_to_same(user_id, asked, now, hits, who) if request.own_words_only else []
        repeat = distinct(reply + hits)[:1] if reply else []
        if repeat:
            hits = repeat + [h for h in hits if h.id != repeat[0].id]
        topics = question_topics(asked)
        if topics and plain:  # the user's current fact on the topic is its answer, however far down it ranked
            hits = prompt_safe_hits(self._topic_facts(user_id, topics, tiers, now, hits, who)) + hits
        about_user = about_user_alone(asked)
        ordered = on_topic_first(speaker_first(hits, frozenset(h.id for h in repeat)) if about_user else hits, topics,
                                 leading_topic(asked, topics))
        ordered = outranked_claims_below(ordered, self._claimed_facts(user_id, ordered[:k], now, who))
        # a "which instrument / sport / language" question is answered by the lines saying the user plays, does or
        # speaks one ("The user took up the violin" shares no word with it), the newest saying first (a change above
        # the value it changed); with none, by nothing
        kind, members = asks_a_kind(asked), []
        if kind:
            members = sorted((h for h in ordered[:k] if names_a_member(asked, h.content)), key=_said_at, reverse=True)
            if members and not (repeat or on_topic(ordered[0], topics)):
                named = {m.id for m in members}
                ordered = members + [h for h in ordered if h.id not in named]
        # the user's fact on the topic, the reply to the same question, or the user's own doing of the kind asked
        answered = bool(ordered) and (on_topic(ordered[0], topics) or bool(repeat) or bool(members))
        talk = about_talk and any(h.is_conversation or h.dialogue for h in hits)
        if kind and not answered and not talk and floor is not None:
            return standing
        best = max((h.confidence for h in hits if h.confidence is not None), default=float("-inf"))
        focus = focus_terms(about_the_user(asked))
        value = expected_value(asked)  # the kind of value the question names (a colour, a blood type…), if any

        def holds(h: MemoryHit) -> bool:  # "I'm type O" answers "What is my blood type?" without sharing its words
            return value is not None and holds_value(value, h.content)

        if floor is not None and not answered and not talk and not addressed and floor <= best < floor + FOCUS_MARGIN:
            # a weak match is kept only when a line shares a word of what the question is about ("What is my blood
            # type?" is not answered by the lines that merely sound like a question about the user)
            # (a line in the other language, where shared words are only the dictionary's guess, may stand on a
            # clearer match instead)
            ql, family = language_of(asked), subject_family(asked)
            if focus and not any(covers_focus(h, focus) or holds(h)
                                 or (family is not None and subject_family(h.content) == family)
                                 or (language_of(h.content) != ql and (h.confidence or 0.0) >= floor + CROSS_FOCUS_MARGIN)
                                 for h in hits):
                return standing
        if floor is not None and not answered and not talk and best < floor:
            unvectored = [h for h in hits if self.searcher.keyword_only(h.memory_type, h.keyword_score)]
            if not unvectored:
                return standing
            ordered = unvectored
        if talk:
            ordered = said_about_first(ordered, asked)
        kept = {h.id for h in standing}
        recalled = close_to_best(ordered, self.engine.config.recall_relative_score, topics, about_user)
        if value is not None:  # a fact holding a value of the kind asked comes first, however its score compares;
            # beside it, only what shares the question's words or topic (not the user's other facts); lines of a
            # conversation keep their ranking (who said it decides there, see speaker_first)
            first = [h for h in ordered if holds(h) and not (h.is_conversation or h.dialogue)
                     and (floor is None or h.confidence is None or h.confidence >= floor)]
            brought = {h.id for h in first}
            recalled = first + [h for h in recalled if h.id not in brought
                                and (not first or holds(h) or covers_focus(h, focus) or on_topic(h, topics))]
        if floor is not None and not talk:
            recalled = without_weak_lines(recalled, focus, floor, lambda h: on_topic(h, topics) or holds(h))
        if topics and answered and not repeat and not talk:
            # the user's fact on the topic answers: beside it, what is said on that topic or shares the question's
            # words, not the user's other facts that merely sound alike ("Who is my manager?" is not answered by "I'm
            # vegetarian")
            # (a clear dense match stays: a relative the topic's words do not name, "用户的外婆…")
            recalled = [h for h in recalled if on_topic(h, topics) or covers_focus(h, focus)
                        or _topic_of(h.content) in topics
                        or (h.confidence or 0.0) >= (floor or 0.0) + FOCUS_MARGIN]
        recalled = without_restated_lines([h for h in recalled if h.id not in kept])[:k]
        # a question that names the kind of its answer (a colour, a blood type, a size…) is answered only by a line
        # holding such a value or sharing a word of what is asked: the lines that merely sound like it ("my favourite
        # dish" for "my favourite colour") say nothing, and the user never said it
        if (value is not None and floor is not None and not talk and not addressed
                and answers_none(value, [h.content for h in recalled], focus, asked)):
            return standing
        decided = bool(repeat) or talk or addressed
        judged = None
        if llm is not None and recalled and self._unsure(decided, floor, best, focus, recalled):
            judged = self.judge.judge(llm, asked, recalled)
        threshold = self.engine.config.recall_relevance_threshold
        if judged is not None:
            recalled = judged
        elif (recalled and threshold is not None and min_score is None  # a floor the caller chose is theirs alone
              and not answered and self._rules_unsure(decided, floor, best, focus, recalled)):
            recalled = default_model().keep(asked, recalled, threshold)  # no host verdict: the offline model's
        return standing + recalled

    def _unsure(self, decided: bool, floor: float | None, best: float, focus: frozenset[str],
                hits: list[MemoryHit]) -> bool:
        """Whether the host model is asked to judge ``hits`` (``recall_judge``): always, never, or where the rules
        were unsure — the lines were not ``decided`` by the user's own history (the reply to this same question asked
        before, a question about the conversation itself), and the best match is only a little above the floor or no
        line shares a focus word with the question. A known fact on the question's topic is judged too: it is the
        right subject, not always the answer ("Which university did my husband attend?" and his name)."""
        mode = self.engine.config.recall_judge
        if mode != "unsure":
            return mode == "always"
        return self._rules_unsure(decided, floor, best, focus, hits)

    @staticmethod
    def _rules_unsure(decided: bool, floor: float | None, best: float, focus: frozenset[str],
                      hits: list[MemoryHit]) -> bool:
        """Where the rules were unsure of ``hits`` (see :meth:`_unsure`): where the host model is asked by default,
        and where, without its verdict, the offline relevance model decides (``recall_relevance_threshold``)."""
        return not decided and (floor is None or best < floor + FOCUS_MARGIN
                                or not any(covers_focus(h, focus) for h in hits))

    def _topic_facts(self, user_id: str, topics: frozenset[str], tiers: list[MemoryType], now: float | None,
                     hits: list[MemoryHit], who: Caller) -> list[MemoryHit]:
        """The user's current memories keyed by one of ``topics`` themselves (``residence``, ``occupation``: one value
        each) that ``hits`` lack, as hits scored like the best of them: a question about where the user lives gets the
        current residence whatever the ranking made of its wording ("The user moved from Berlin to Munich")."""
        engine = self.engine
        ids = [mid for tier in tiers if tier is not MemoryType.SHORT_TERM
               for mid in engine.find_by_metadata_values(user_id, "fact_key", sorted(topics), tier).values()]
        held = {h.id for h in hits}
        wanted = [mid for mid in ids if mid not in held]
        if not wanted:
            return []
        records = engine.active_records(wanted, user_id, now=engine.now(v.check_timestamp(now, "now")))
        top = max((h.score for h in hits), default=1.0)
        found = [MemoryHit(records[mid], top, 1.0, None, None, None, False) for mid in wanted if mid in records]
        engine.note_access([h.record for h in found], user_id, who)
        return found

    def _claimed_facts(self, user_id: str, hits: list[MemoryHit], now: float | None, who: Caller) -> list[MemoryHit]:
        """The tool-written facts (``metadata["subject"]``, readable by ``who``) that ``hits`` make a weaker claim
        about and lack: the value a system of record wrote goes above a claim in chat (``outranked_claims_below``)."""
        engine, held = self.engine, {h.id for h in hits}
        subjects = sorted({s for h in hits if h.metadata.get("source") != "tool" for s in [fact_subject(h.content)] if s})
        ids = {str(h.metadata["disputes"]) for h in hits if h.metadata.get("disputes")}
        for tier in [MemoryType.LONG_TERM] + ([MemoryType.PERMANENT] if who.read_permanent else []):
            ids |= set(engine.find_by_metadata_values(user_id, "subject", subjects, tier).values()) if subjects else set()
        records = engine.active_records(sorted(ids - held), user_id, now=engine.now(v.check_timestamp(now, "now")))
        found = [r for r in records.values() if r.memory_type is not MemoryType.PERMANENT or who.read_permanent]
        engine.note_access(found, user_id, who)
        top = max((h.score for h in hits), default=1.0)
        return prompt_safe_hits([MemoryHit(r, top, 1.0, None, None, None, False) for r in found])

    def _reply_to_same(self, user_id: str, query: str, now: float | None, hits: list[MemoryHit],
                       who: Caller) -> list[MemoryHit]:
        """The assistant's reply when the user asked this same question before (the newest), as a hit scored like the
        best of ``hits``; none when it said it did not know (or the question was never asked)."""
        engine = self.engine
        if not is_question(query):
            return []
        mid = engine.find_by_metadata(user_id, "question", question_key(query), [MemoryType.SHORT_TERM])
        if mid is None:
            return []
        records = engine.active_records([mid], user_id, now=engine.now(v.check_timestamp(now, "now")))
        if mid not in records:
            return []
        top = max(hits, key=lambda h: h.score, default=None)
        hit = MemoryHit(records[mid], top.score if top else 1.0, top.relevance if top else 1.0, None, None,
                        top.confidence if top else None, True)
        found = without_unanswering(prompt_safe_hits([hit]))
        engine.note_access([h.record for h in found], user_id, who)
        return found

    def _standing(self, user_id: str, now: float | None) -> list[MemoryHit]:
        """The user's current preferences about replies (language, length, tone, format: the keys of
        :data:`~hermes_memory_core.trust.injection_preference.PREFERENCE_KEYS`), which hold for every answer, as
        hits scored 1.0: only what the user's own words set (``standing_preference``), never a keyed memory another
        writer gave such a key."""
        engine, at = self.engine, self.engine.now(v.check_timestamp(now, "now"))
        ids = {mid for key in ("standing", "fact_key")  # the preference path's own key, then any writer's topic key
               for mid in engine.find_by_metadata_values(user_id, key, PREFERENCE_KEYS, MemoryType.LONG_TERM).values()}
        records = engine.active_records(sorted(ids), user_id, now=at) if ids else {}
        return [MemoryHit(rec, 1.0, 1.0, None, None, None, False) for rec in current_preferences(records.values())]
