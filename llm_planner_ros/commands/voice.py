"""``llm-planner voice``: a spoken loop for people, a client of a running graph
(llm_planner_ros/frontends/voice/; docs/guides/web-and-voice.md)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.paths import config_dir
from llm_planner_ros.commands.plan import add_graph_options


def register(sub: argparse._SubParsersAction) -> None:
    voice = sub.add_parser("voice", help="a spoken loop: speech in on directive, questions and results spoken back",
                           description="Recognises each utterance with PocketSphinx (a grammar of the apartment's "
                           "names; answers to a question with a grammar of its options, yes and no) and publishes it "
                           "on directive; speaks the robot's questions and results with eSpeak NG. An utterance below "
                           "the confidence floor is asked again, never published. Input: the microphone (arecord), "
                           "or --wav / --stdin-wav. Settings: config/frontends.yaml (voice).")
    source = voice.add_mutually_exclusive_group()
    source.add_argument("--wav", type=Path, nargs="+", metavar="FILE", help="utterances as WAV files, in order")
    source.add_argument("--stdin-wav", action="store_true", help="utterances as WAV files sent back to back on stdin")
    voice.add_argument("--say-wav", type=Path, default=None, metavar="DIR",
                       help="write what the robot says to DIR/001.wav, ... instead of the speaker")
    voice.add_argument("--scene", default=None,
                       help="the apartment whose names the recogniser expects (default: the scene of "
                            "config/llm_planner.yaml)")
    voice.add_argument("--confidence-floor", type=float, default=None, metavar="LLR",
                       help="utterances heard less surely are asked again (default: config/frontends.yaml)")
    voice.add_argument("--json", type=Path, default=None, metavar="FILE",
                       help="write the exchanges (heard, confidence, questions, how each task ended, its goal)")
    add_graph_options(voice)
    voice.set_defaults(func=run_voice)


def run_voice(args: argparse.Namespace) -> int:
    from llm_planner.config import read_params_file
    from llm_planner_ros.client import PlannerClient
    from llm_planner_ros.frontends.settings import load_settings
    from llm_planner_ros.frontends.voice.audio import microphone, wav_files, wav_stream
    from llm_planner_ros.frontends.voice.loop import VoiceLoop, summary
    from llm_planner_ros.frontends.voice.recognizer import Recognizer
    from llm_planner_ros.frontends.voice.speaker import Speaker

    settings = load_settings()[1]
    if args.confidence_floor is not None:
        settings = dataclasses.replace(settings, confidence_floor=args.confidence_floor)
    scene = load_scene(args.scene or read_params_file(config_dir() / "llm_planner.yaml")["scene"])
    recognizer = Recognizer(scene, settings.sample_rate_hz)
    speaker = Speaker(settings.voice, settings.words_per_minute, args.say_wav)
    rate = settings.sample_rate_hz
    utterances = (wav_files(args.wav, rate) if args.wav else wav_stream(sys.stdin.buffer, rate) if args.stdin_wav
                  else microphone(rate, settings.microphone_utterance_s))
    with PlannerClient("llm_planner_voice", args.namespace, args.server_timeout) as client:
        loop = VoiceLoop(client, recognizer, speaker, settings)
        exchanges = loop.run(utterances)
    counts = summary(exchanges)
    print("summary: " + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": counts, "exchanges": [e.as_dict() for e in exchanges],
                                         "spoken": [[t, str(p)] for t, p in speaker.written]}, indent=1))
    return 0
