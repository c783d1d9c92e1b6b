"""Speech to text with PocketSphinx (the PyPI wheel's US English model), biased to one apartment.

PocketSphinx's general language model turns synthesised directives into nonsense here; a JSGF
grammar written from the apartment's own names recognises most of them exactly (docs/guides/
web-and-voice.md gives the figures). Two grammars: directives (``put <count> <object> <relation>
the <place>``, with each word of a several-word name also alone, so a name cut short reaches the
directive reader's "did you mean ...?"), and answers to a question (its options, yes and no,
counts, "the <place>", "the one in the <room>"). A word the model's dictionary lacks is left out
of both, and said once on the log.
"""
from __future__ import annotations

import logging
import math
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pocketsphinx import Decoder, get_model_path

from llm_planner.domains.household.world.scene import Scene
from llm_planner_ros.frontends.voice.audio import Utterance

LOG = logging.getLogger(__name__)
PHONES = "phones"  # the free phone loop the confidence compares with
PAD_S = 0.3
DITHER = 10.0  # standard deviation of the dither, in 16-bit sample units

VERBS = ("put", "place", "bring", "take", "move", "set", "get", "leave", "stick")
OPENINGS = ("please", "could you", "can you", "would you", "robot", "hey robot", "i want you to", "i would like you to")
ONE = ("a", "an", "one", "the")
MANY = ("two", "three", "four", "both", "both the", "all the", "the", "all", "a few", "some")
RELATIONS = ("in", "into", "inside", "on", "onto", "on top of", "to", "in the middle of", "next to")
ANSWER_WORDS = ("yes", "no", "yes please", "no thanks", "one", "two", "three", "four", "both", "all of them",
                "the first one", "the second one", "the third one")


@dataclass(frozen=True)
class Grammar:
    """A JSGF grammar and a regular expression of the same sentences (to tell a whole sentence from
    the fragment PocketSphinx returns when no path reaches the grammar's end)."""

    name: str
    jsgf: str
    pattern: re.Pattern[str]


@dataclass(frozen=True)
class Heard:
    """What the recogniser made of an utterance: the text ("" when no phrase of the grammar fits)
    and its confidence (:meth:`Recognizer.hear`; higher is surer)."""

    text: str
    confidence: float

    def sure(self, floor: float) -> bool:
        return bool(self.text) and self.confidence >= floor


def plural(said: str) -> str:
    """The plural of a spoken name's last word (``wine glass`` -> ``wine glasses``)."""
    head, _, last = said.rpartition(" ")
    last = last + "es" if last.endswith(("s", "sh", "ch", "x")) else last[:-1] + "ies" if last.endswith("y") \
        and last[-2:-1] not in "aeiou" else last + "s"
    return f"{head} {last}".strip()


def spoken(name: str) -> str:
    """A scene name as it is said: ``kitchen_table`` -> ``kitchen table``."""
    return " ".join(name.replace("_", " ").split())


def padded(pcm: bytes, rate: int, seconds: float = PAD_S) -> bytes:
    """``pcm`` with ``seconds`` of near silence before and after, with a faint dither: without it
    PocketSphinx drops the last word of synthesised speech that stops dead ("put the mug on the")."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    pad = np.zeros(int(rate * seconds))
    dither = np.random.default_rng(0).normal(0.0, DITHER, len(samples) + 2 * len(pad))  # the same for the same audio
    samples = np.concatenate([pad, samples, pad]) + dither
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()


def _alternatives(phrases: Iterable[str]) -> str:
    return " | ".join(sorted(set(phrases)))


def _rx(phrases: Iterable[str]) -> str:
    return "(?:" + "|".join(re.escape(p) for p in sorted(set(phrases), key=len, reverse=True)) + ")"


class Recognizer:
    """PocketSphinx with a directive grammar for ``scene`` and an answer grammar per question."""

    def __init__(self, scene: Scene, rate: int) -> None:
        self.rate = rate
        self.decoder = Decoder(samprate=float(rate), lm=None, logfn="/dev/null")
        self.missing: set[str] = set()
        self.scene = scene
        self._objects_one = self._phrases(spoken(name) for name in scene.object_types)
        self._objects_many = self._phrases(plural(spoken(name)) for name in scene.object_types)
        self._places = self._phrases(self._place_names(scene))
        self._rooms = self._phrases([spoken(r) for r in scene.rooms])
        self._grammars: dict[tuple[str, ...] | None, Grammar] = {}
        self.decoder.add_allphone_file(PHONES, str(Path(get_model_path()) / "en-us-phone.lm.bin"))
        if self.missing:
            LOG.warning("words not in the recogniser's dictionary, left out: %s", ", ".join(sorted(self.missing)))

    # ------------------------------------------------------------------ vocabulary
    @staticmethod
    def _place_names(scene: Scene) -> list[str]:
        names = [spoken(r) for r in scene.rooms]
        for name in scene.furniture:
            said = spoken(name)
            names += [said, *said.split()]
        return names

    def _known(self, word: str) -> bool:
        return self.decoder.lookup_word(word) is not None

    def _phrases(self, phrases: Iterable[str]) -> list[str]:
        """The phrases every word of which the dictionary has (the others noted in ``missing``)."""
        kept = []
        for phrase in phrases:
            unknown = [w for w in phrase.split() if not self._known(w)]
            if unknown:
                self.missing.update(unknown)
                continue
            kept.append(phrase)
        return kept

    # ------------------------------------------------------------------ grammars
    def _directive_rules(self) -> dict[str, list[str]]:
        singular = self._objects_one
        return {"opening": list(OPENINGS), "verb": list(VERBS), "one": list(ONE), "many": list(MANY),
                "object": singular, "objects": self._objects_many, "relation": list(RELATIONS),
                "place": self._places}

    def directive_grammar(self) -> Grammar:
        """``[<opening>] <verb> <item> [and <item>] [please]``, an item being ``[a|one|the] <object>
        <relation> the <place>`` or ``two|both|... <objects> <relation> the <place>``: a count agrees
        with its noun, so "two apple" cannot be heard."""
        r = self._directive_rules()
        item_jsgf = "[<one>] <object> <relation> the <place> | <many> <objects> <relation> the <place>"
        item_rx = (f"(?:(?:{_rx(r['one'])} )?{_rx(r['object'])}|{_rx(r['many'])} {_rx(r['objects'])}) "
                   f"{_rx(r['relation'])} the {_rx(r['place'])}")
        jsgf = ("#JSGF V1.0;\ngrammar directive;\n"
                "public <directive> = [<opening>] <verb> <item> [and <item>] [please];\n"
                f"<item> = {item_jsgf};\n" + "".join(f"<{k}> = {_alternatives(v)};\n" for k, v in r.items()))
        rx = f"(?:{_rx(r['opening'])} )?{_rx(r['verb'])} {item_rx}(?: and {item_rx})?(?: please)?"
        return Grammar("directive", jsgf, re.compile(rx))

    def answer_grammar(self, options: Sequence[str]) -> Grammar:
        """Answers to a question offering ``options`` ("coffee table (living room)", "yes", "two"):
        a word (yes, no, a count, an option as said), ``[the] <thing> [in the <room>]`` or ``the one
        in the <room>``."""
        said = self._phrases(" ".join(o.replace("(", " ").replace(")", " ").replace("_", " ").lower().split())
                             for o in options)
        heads = self._phrases(o.split("(")[0].strip().lower().replace("_", " ") for o in options
                              if o.lower() not in ANSWER_WORDS)
        r = {"word": [*ANSWER_WORDS, *said], "thing": [*heads, *self._places, *self._objects_one],
             "room": self._rooms}
        jsgf = ("#JSGF V1.0;\ngrammar answer;\n"
                "public <answer> = <word> | [the] <thing> [in the <room>] | the one in the <room>;\n"
                + "".join(f"<{k}> = {_alternatives(v)};\n" for k, v in r.items()))
        rx = (f"{_rx(r['word'])}|(?:the )?{_rx(r['thing'])}(?: in the {_rx(r['room'])})?"
              f"|the one in the {_rx(r['room'])}")
        return Grammar("answer", jsgf, re.compile(rx))

    # ------------------------------------------------------------------ recognition
    def hear(self, utterance: Utterance, options: Sequence[str] | None = None) -> Heard:
        """Recognise ``utterance`` as a directive, or (``options`` given) as the answer to a question.

        The text is "" when the best path ends outside the grammar (PocketSphinx then returns a
        fragment: "put the juice on the kitchen and three milk"). The confidence is the log
        likelihood ratio per frame of the grammar's path against a free phone loop over the same
        audio: near 0 when the words fit the sounds as well as any phones do, lower when they fit worse.
        """
        grammar = self._grammar(tuple(options) if options is not None else None)
        pcm = padded(utterance.pcm, self.rate)
        text, score, frames = self._decode(grammar.name, pcm)
        if not text or not grammar.pattern.fullmatch(text):
            return Heard("", 0.0)
        _phones, free, _ = self._decode(PHONES, pcm)
        return Heard(text, round((score - free) / max(frames, 1), 3))

    def _grammar(self, options: tuple[str, ...] | None) -> Grammar:
        """The grammar for ``options`` (None: directives), added to the decoder once."""
        if options not in self._grammars:
            grammar = self.directive_grammar() if options is None else self.answer_grammar(options)
            name = f"{grammar.name}{len(self._grammars)}"
            self.decoder.add_jsgf_string(name, grammar.jsgf)
            self._grammars[options] = Grammar(name, grammar.jsgf, grammar.pattern)
        return self._grammars[options]

    def _decode(self, search: str, pcm: bytes) -> tuple[str, float, int]:
        """(words, natural-log acoustic score of the best path, frames) of ``pcm`` under ``search``."""
        self.decoder.activate_search(search)
        self.decoder.start_utt()
        self.decoder.process_raw(pcm, full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        if hyp is None:
            return "", 0.0, self.decoder.n_frames()
        words = " ".join(w.split("(")[0] for w in hyp.hypstr.split())
        score = sum(math.log(max(seg.ascore, sys.float_info.min)) for seg in self.decoder.seg())
        return words, score, self.decoder.n_frames()
