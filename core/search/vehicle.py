"""The user's own car, said by its make or model alone: one part of the user's life that
core.search.life reads ("What car do we drive?" / "we sold the CR-V and bought an Ioniq 5. Home
charger install tips?": nothing in the words says an Ioniq is a car, and the packaged model
scores them 0.15 apart).

A make or model is one of the commonest of the US, UK, European, Australian and Asian markets:
those that name only a car (``_CARS_ONLY``) and those that also name people, words or their
makers' other goods (``_CARS_TOO``), which count only beside what says a vehicle (``_VEHICLE``:
its engine, tyres, fuel, charging, mileage, towing). A text says the user's own car when the
user buys one (or sells one and buys another: "sold the ranger, got a hilux") and that sentence
or the next says a vehicle ("Picked up a Skoda Enyaq on Saturday. Garda trip is now
electric."), or the car is one of ``_CARS_ONLY``; drives or sells one, not hired or borrowed, in
a sentence saying a vehicle; has one ("my RAV4", "our Passat") in such a sentence, or one of
``_CARS_ONLY`` in any; or gives a year, a make or model and a mileage ("2009 civic 190k
miles"). Never in a sentence naming a maker's other goods (``_OTHER_GOODS``: a mower, a battery,
a motorbike), nor anyone else's ("my sister drives a Tesla", "my Nan's old Corolla is diesel"),
nor an order or a question ("I ordered a Model Y", "Buy a Polestar 2 or wait?"). Two reviews'
99 chatty stores found wider first versions answering 59 questions that should have stayed
empty (a hybrid mattress, a game engine, a daughter named Mercedes); this one answers none the
old code did not (benchmarks/README.md, "Session 33"). A plain "my car" names "car" by its stem
already (core.search.subject).
"""

from __future__ import annotations

import re

_VEHICLE = (
    r"\b(?:(?<!game\s)(?<!physics\s)(?<!search\s)(?<!graphics\s)(?<!rendering\s)engine|gearbox|"
    r"transmission|tyres?|tires?|mileage|\d*mpg|diesel|petrol|gasoline|hybrid|ev|evs|"
    r"home\s+charger|charging\s+(?:stops?|stations?|points?)|"
    r"(?:now|went|go|going|gone|fully)\s+electric|oil\s+change|towing|tow\s*bar|"
    r"dealer(?:ship)?|rego|horsepower|4x4|4wd|awd|test\s+drive)\b"
)
# Makes and models that name nothing but a car, and those that also name people, places,
# words or the makers' other goods ("Mercedes" turns five, a Honda mower, a Mitsubishi split
# system, a Tesla battery, a Suzuki motorbike): these only beside what says a vehicle. Models
# that are common words or names ("Focus", "Swift", "Golf", "Ranger", "Rogue", "Jazz", "Leaf")
# are left out.
_CARS_ONLY = (
    r"toyota hyundai mazda nissan subaru volkswagen vw skoda audi renault citroen vauxhall "
    r"opel chevrolet chevy dacia isuzu cupra polestar prius hilux rav-?4 camry corolla yaris "
    r"landcruiser cr-?v hr-?v tiguan qashqai enyaq ioniq(?:\s+\d)? sportage kodiaq x-trail "
    r"navara crosstrek silverado 4runner d-?max bt-?50 f-?[1-4]50 cx-?\d+ mx-?5 octavia passat"
).split()
_CARS_TOO = (
    r"honda tesla kia mercedes volvo peugeot fiat mitsubishi suzuki bmw lexus holden porsche "
    r"byd civic niro picanto impreza fabia micra megane evoque altima elantra i30 vitara "
    r"outlander astra corsa kuga land\s+rover range\s+rover"
).split()
# What else a maker of cars sells, or a car's words also mean, in the same sentence.
_OTHER_GOODS = re.compile(
    r"\b(?:(?:lawn\s*)?mower|blower|snipper|trimmer|generator|powerwall|battery|solar|outboard|"
    r"(?:motor)?bikes?|motorcycles?|scooters?|quad|split\s+system|air\s*con|heat\s+pump|"
    r"piano|keyboard|watch|jeans|pepper|mill|grinder|caravan|boat|pump|clubs?|shirt|shoes|"
    r"trainers)\b",
    re.IGNORECASE,
)
_ONE_OF = r"(?:{})"
# A make or model, maybe with the model's word after it ("Skoda Enyaq", "Ioniq 5"), not
# someone's ("my Nan's").
_NAMED = r"(?![\w-])(?!'s\b)(?:\s+[\w-]+)??(?![\w-])(?!'s\b)"
_KNOWN = _ONE_OF.format("|".join(_CARS_ONLY)) + _NAMED
_CAR = _ONE_OF.format("|".join([*_CARS_ONLY, *_CARS_TOO])) + _NAMED
_SENTENCE = r"[^.!?\n]*?"
_NOT_HIRED = r"(?![^.!?\n]*\b(?:rental|rented|hired?|borrowed|loan|courtesy|test\s+drive)\b)"
# The user as the one who does it: "I", "we", or nobody at the start of a sentence ("Picked up
# a Skoda ..."), maybe after selling another ("sold the ranger, got a hilux").
_THE_USERS = (
    r"(?:(?:^|[.!?]\s+)(?:(?:and|also|so|finally|just)\s+)?|\b(?:i|we)(?:'ve|\s+have)?\s+"
    r"(?:just\s+|finally\s+)?)(?:sold\s+(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?(?:,\s*|\s+and\s+))?"
)
# Bought, not asked about or ordered ("Buy a Polestar 2 or wait?", "I ordered a Model Y but
# cancelled it"); "we buy" as some write "we bought".
_BUYS = r"(?:bought|(?<=i\s)buy|(?<=we\s)buy|got|picked\s+up|traded\s+in|leased)\s+"
_YEAR = r"(?:new\s+|used\s+|(?:19|20)\d\d\s+)?"
_OWN_VEHICLE = re.compile(
    rf"{_THE_USERS}{_BUYS}(?:a|an|the|my|our)\s+{_YEAR}{_CAR}"
    rf"{_SENTENCE}(?:{_VEHICLE}|[.!?]\s+{_SENTENCE}{_VEHICLE})"
    rf"|{_THE_USERS}{_BUYS}(?:(?:a|an|the|my|our)\s+)?{_YEAR}{_KNOWN}"
    rf"|{_THE_USERS}(?:sold|drive|drove)\s+{_NOT_HIRED}(?:a|an|the|my|our)\s+{_YEAR}{_CAR}"
    rf"{_SENTENCE}{_VEHICLE}"
    rf"|\b(?:my|our)\s+(?:new\s+|old\s+)?{_CAR}{_SENTENCE}{_VEHICLE}"
    rf"|{_VEHICLE}{_SENTENCE}\b(?:my|our)\s+(?:new\s+|old\s+)?{_CAR}"
    rf"|\b(?:my|our)\s+(?:new\s+|old\s+)?{_KNOWN}"
    rf"|\b(?:19|20)\d\d\s+{_CAR}(?:\s+[\w-]+){{0,2}},?\s+(?:with\s+)?\d[\d,.]*k?\s*(?:miles|km)\b",
    re.IGNORECASE | re.MULTILINE,
)


def says_own_vehicle(text: str) -> bool:
    """Whether ``text`` says the user's own car (``_OWN_VEHICLE``) in sentences that name none
    of the makers' other goods (``_OTHER_GOODS``: "just bought a suzuki sv650, first proper
    bike")."""
    for match in _OWN_VEHICLE.finditer(text):
        start = max(text.rfind(end, 0, match.start() + 1) for end in ".!?\n") + 1
        stops = [i for end in ".!?\n" if (i := text.find(end, match.end())) >= 0]
        if not _OTHER_GOODS.search(text, start, min(stops, default=len(text))):
            return True
    return False


# The words a question asks about the user's car by ("What car do we drive?", "Which vehicle
# do I have?", "What's our motor?").
ASKED_AS_VEHICLE = "car vehicle motor auto automobile truck ute van suv pickup drive".split()
