"""The front ends' plain parts, without a graph: their settings file, WAV input (any rate, back to
back on a stream, refused with a reason when it is no WAV) and the recogniser's grammar, which
refuses the fragment PocketSphinx returns when no path ends in it."""
from __future__ import annotations

import io
import shutil
import subprocess
import wave

import numpy as np
import pytest

from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner_ros.frontends.settings import load_settings
from llm_planner_ros.frontends.voice.audio import read_wav, wav_stream


def _wav(seconds: float, rate: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes((np.sin(np.arange(int(seconds * rate) * 2) / 7.0) * 8000).astype("<i2").tobytes())
    return out.getvalue()


def test_the_shipped_settings_load_and_a_wrong_key_is_named(tmp_path):
    web, voice = load_settings()
    assert web.render_view == "top" and voice.confidence_floor < voice.confirm_below < 0
    bad = tmp_path / "frontends.yaml"
    bad.write_text("web: {history_event: 3}\nvoice: {}\n")
    with pytest.raises(ConfigError, match="unknown keys \\['history_event'\\]"):
        load_settings(bad)


def test_wavs_are_resampled_to_mono_16k_and_read_back_to_back_from_a_stream():
    one = read_wav(_wav(0.5, 22050), "a", 16000)
    assert one.rate == 16000 and len(one.pcm) == 2 * 8000
    utterances = list(wav_stream(io.BytesIO(_wav(0.25, 44100) + _wav(1.0, 16000)), 16000))
    assert [(u.source, len(u.pcm)) for u in utterances] == [("stdin #1", 8000), ("stdin #2", 32000)]
    with pytest.raises(LlmPlannerError, match="expected a WAV file"):
        list(wav_stream(io.BytesIO(b"hello, not a wav"), 16000))
    with pytest.raises(LlmPlannerError, match="not a PCM WAV file"):
        read_wav(b"RIFF\x04\x00\x00\x00WAVE", "b", 16000)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (scripts/setup.sh)")
def test_the_grammar_hears_a_directive_and_its_answer_and_nothing_in_chatter(tmp_path):
    from llm_planner.domains.household.world.scene import load_scene
    from llm_planner_ros.frontends.voice.recognizer import Recognizer

    recognizer = Recognizer(load_scene("apartment_seen"), 16000)
    grammar = recognizer.directive_grammar().pattern
    assert grammar.fullmatch("put two apples on the kitchen table")
    assert not grammar.fullmatch("put two apple on the kitchen table")  # a count agrees with its noun
    assert not grammar.fullmatch("put the juice on the kitchen and three milk")  # PocketSphinx's fragment

    def heard(text: str, options=None):
        path = tmp_path / "u.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), text], check=True)
        return recognizer.hear(read_wav(path, text, 16000), options)

    assert heard("put the towel in the wardrobe").text == "put the towel in the wardrobe"
    assert heard("the coffee table", ["kitchen table (kitchen)", "coffee table (living room)"]).text == \
        "the coffee table"
    assert heard("hello how are you today my friend").text == ""
