"""How people wrap a directive: polite openings and endings, gerunds for verbs. ``normalize``
strips them so both the offline goal parser and the Levy-Karpas clause splitter read the bare
request.

    >>> normalize("Could you please put the apple in the fridge, thanks!")
    'put the apple in the fridge'
"""
from __future__ import annotations

import re

#: Gerunds read as the verb ("putting the milk away" -> "put the milk away").
GERUNDS = {"putting": "put", "placing": "place", "moving": "move", "bringing": "bring", "taking": "take",
            "storing": "store", "setting": "set", "leaving": "leave", "carrying": "carry", "getting": "get",
            "dropping": "drop", "loading": "load", "keeping": "keep", "stacking": "stack", "laying": "lay",
            "returning": "return", "transferring": "transfer", "tossing": "toss", "throwing": "throw"}
POLITE_START = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|alright|so|um|uh|well|robot|buddy)\b\s*[,:!]?\s*"
    r"|(?:please|kindly|now|then|just|also|first|next|finally|and|pls|plz)\s+"
    r"|would\s+you\s+mind\s+|(?:could|can|would|will)\s+(?:you|u)(?:\s+please)?(?:\s+kindly)?\s+"
    r"|do\s+me\s+a\s+(?:\w+\s+)?favou?r\s+(?:and\s+)?|go\s+ahead\s+and\s+|make\s+sure\s+(?:that\s+)?(?:you\s+)?"
    r"|when\s+you\s+(?:get\s+a\s+chance|can|have\s+a\s+moment|have\s+time)\s*,?\s*"
    r"|would\s+it\s+be\s+possible\s+(?:for\s+you\s+)?to\s+|is\s+it\s+possible\s+(?:for\s+you\s+)?to\s+"
    r"|i\s+(?:was|am|'m)\s+wondering\s+if\s+you\s+(?:could|would|can|might)\s+"
    r"|i(?:'d|\s+would)\s+(?:really\s+)?(?:appreciate\s+it|love\s+it|like\s+it)\s+if\s+you\s+(?:could\s+|would\s+|can\s+)?"
    r"|i(?:\s+want|\s+need|\s+would\s+like|'d\s+like|\s+d\s+like|'d\s+love|\s+would\s+love)\s+(?:you\s+)?to\s+"
    r"|i(?:\s+want|\s+need|\s+would\s+like|'d\s+like|\s+d\s+like|'d\s+love|\s+would\s+love)\s+"
    r"|let'?s\s+|help\s+me\s+|(?:your\s+)?task\s+is\s+to\s+|you\s+should\s+|try\s+to\s+|remember\s+to\s+)+"
)
POLITE_END = re.compile(
    r"(?:\s*,?\s*(?:please|pls|plz|for\s+me|thanks|thank\s+you|thx|if\s+you\s+can|if\s+you\s+could|when\s+you\s+can"
    r"|right\s+now|now|asap|as\s+well|too))+$"
)

def normalize(directive: str) -> str:
    """Lower case, plain quotes, no trailing punctuation, polite wrappers removed, gerunds as verbs."""
    text = directive.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[.!?;]+(?=\s+\S)", ",", text)  # sentences inside a directive are clauses
    text = re.sub(r"[\"!?.]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    previous = None
    while previous != text:
        previous = text
        text = POLITE_START.sub("", text).strip(" ,;:")
        text = POLITE_END.sub("", text).strip(" ,;:")
    words = text.split()
    return " ".join(GERUNDS.get(w, w) for w in words)
