"""Generated bilingual conversations in LoCoMo's shape, so the benchmarks run with nothing beside the clone.

Each conversation has two speakers and sessions a week apart. Most turns are small talk over a shared
vocabulary (cities, foods, hobbies in English and Chinese), so every topic word appears in many turns; a few
turns state a fact about a speaker, and each fact has a question whose evidence is that turn. Small talk mentions
the same cities and hobbies as the facts, so a question's words also match turns that do not answer it.
Deterministic for a seed. This is a stand-in for timing, not a quality benchmark: use LoCoMo for recall figures.
"""

from __future__ import annotations

import random

from benchmarks.locomo import Conversation, Question, Turn

__all__ = ["synthetic_conversations"]

NAMES = ["Alice", "Bo", "Chen", "Dara", "Elif", "Farid", "Gita", "Hugo", "Ines", "Jun", "Kai", "Lena", "Mei",
         "Nico", "Omar", "Pia", "Quan", "Rosa", "Sami", "Tao"]
CITIES = ["Berlin", "Lisbon", "Osaka", "Nairobi", "Lima", "Oslo", "Hanoi", "Quito", "Porto", "Kyoto"]
CITIES_ZH = ["上海", "杭州", "成都", "西安", "厦门", "青岛", "昆明", "大连"]
FOODS = ["ramen", "paella", "dumplings", "tacos", "pho", "falafel", "risotto", "kimchi stew"]
HOBBIES = ["pottery", "bouldering", "the cello", "watercolor painting", "chess", "sailing", "salsa dancing",
           "birdwatching", "woodworking", "photography"]
HOBBIES_ZH = ["书法", "瑜伽", "围棋", "摄影", "游泳", "烘焙", "古筝", "登山"]
PETS = ["cat", "dog", "parrot", "rabbit", "turtle", "hamster"]
PET_NAMES = ["Mochi", "Biscuit", "Pepper", "Luna", "Tofu", "Milo", "Ziggy", "Nori"]
JOBS = ["nurse", "architect", "data analyst", "chef", "teacher", "pilot", "lawyer", "translator"]
MONTHS = ["March", "April", "May", "June", "July", "August", "September", "October"]

# (statement, question); {s} is the speaker, the rest are filled from the lists above.
FACTS = [
    ("I adopted a {pet} called {pet_name} last week.", "What is the name of {s}'s {pet}?"),
    ("My sister just moved to {city} for work.", "Where did {s}'s sister move?"),
    ("I finally started taking {hobby} lessons.", "What lessons did {s} start taking?"),
    ("I got a new job as a {job}.", "What is {s}'s new job?"),
    ("We are planning a trip to {city} in {month}.", "Where is {s} planning to travel in {month}?"),
    ("Honestly {food} is my favourite thing to eat.", "What is {s}'s favourite food?"),
    ("我最近开始学{hobby_zh}了。", "{s}最近开始学什么？"),
    ("我下个月要去{city_zh}出差。", "{s}下个月要去哪里出差？"),
]
SMALL_TALK = [
    "Have you ever been to {city}? I hear it is lovely in {month}.",
    "I had {food} for lunch today, it was fine.",
    "My neighbour keeps talking about {hobby}.",
    "Did you see the news about {city} this morning?",
    "I might try {hobby} someday, who knows.",
    "The weather has been strange lately.",
    "Work was busy this week, lots of meetings.",
    "A friend of mine is a {job}, long hours.",
    "There is a new {food} place near the station.",
    "你去过{city_zh}吗？听说那边的菜很好吃。",
    "周末我们打算在家休息。",
    "我朋友很喜欢{hobby_zh}。",
    "That sounds great, tell me more!",
    "Haha, same here.",
    "I saw a {pet} in the park and thought of you.",
]


def _fill(template: str, rnd: random.Random, speaker: str, slots: dict[str, str] | None = None) -> str:
    values = {
        "s": speaker, "city": rnd.choice(CITIES), "city_zh": rnd.choice(CITIES_ZH), "food": rnd.choice(FOODS),
        "hobby": rnd.choice(HOBBIES), "hobby_zh": rnd.choice(HOBBIES_ZH), "pet": rnd.choice(PETS),
        "pet_name": rnd.choice(PET_NAMES), "job": rnd.choice(JOBS), "month": rnd.choice(MONTHS),
    }
    values.update(slots or {})
    return template.format(**values)


def synthetic_conversations(
    count: int = 10, sessions: int = 25, turns_per_session: int = 22, facts_per_session: int = 3, seed: int = 7
) -> list[Conversation]:
    """``count`` conversations of ``sessions`` × ``turns_per_session`` turns, with one question per fact turn."""
    rnd = random.Random(seed)
    start = 1_672_531_200  # 2023-01-01 UTC
    out: list[Conversation] = []
    for c in range(count):
        a, b = rnd.sample(NAMES, 2)
        turns: list[Turn] = []
        questions: list[Question] = []
        date = start + c * 86_400
        for s in range(1, sessions + 1):
            fact_at = set(rnd.sample(range(turns_per_session), min(facts_per_session, turns_per_session)))
            for j in range(turns_per_session):
                speaker = a if j % 2 == 0 else b
                dia_id = f"D{s}:{j + 1}"
                if j in fact_at:
                    statement, question = rnd.choice(FACTS)
                    slots = {
                        "month": rnd.choice(MONTHS), "pet": rnd.choice(PETS), "city": rnd.choice(CITIES),
                        "hobby": rnd.choice(HOBBIES), "hobby_zh": rnd.choice(HOBBIES_ZH),
                    }
                    text = _fill(statement, rnd, speaker, slots)
                    questions.append(Question(_fill(question, rnd, speaker, slots), 4, (dia_id,)))
                else:
                    text = _fill(rnd.choice(SMALL_TALK), rnd, speaker)
                turns.append(Turn(dia_id, speaker, text, s, date + 30 * j))
            date += 7 * 86_400
        out.append(Conversation(f"synth-{c}", turns, questions, date - 7 * 86_400, 0))
    return out
