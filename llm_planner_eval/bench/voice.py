"""``llm-planner bench voice``: spoken directives through ``llm-planner voice``, against the running graph.

Each directive of ``config/voice_eval.yaml`` is synthesised with eSpeak NG in the next of its voices
(voice, words per minute) and sent as a WAV file on the stdin of ``llm-planner voice --stdin-wav``.
A scripted :class:`Person` listens to what the robot says (the front end's stdout): it answers a
question with the entry's answers (then "no"), says "yes" to a read-back ("Did you say: ...?")
that matches what it said, articles aside, and says a thing once more, slower, when the robot did
not catch it. The front end's ``--json`` log then says, per directive, what was heard (with its
confidence), what was asked and how the task ended; the goal of each executed task is compared
with the entry's goal.

    llm-planner launch &                        # the graph (e.g. planner: classical in its parameter file)
    llm-planner bench voice --json voice.json   # all 22 directives; --directives 4 for the first four

Figures: executed right (succeeded with the entry's goal), asked back, read back, refused,
utterances not caught (said again), and wrong goals (executed with another goal: the figure that
must stay 0). The run needs ``espeak-ng`` (scripts/setup.sh installs it) and a running graph of
the apartment the entries name (``--scene``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

EXECUTED = ("succeeded", "failed", "canceled")
#: What the person hears as the same word (a recogniser that drops or swaps these is still right).
SAME_WORD = {"into": "in", "inside": "in", "to": "in", "onto": "on"}
ARTICLES = ("a", "an", "the", "one")
NOT_CAUGHT = ("I did not catch that", "Please say it again")


def same_words(text: str) -> list[str]:
    """What a person hears as the same sentence: without articles, in/into/inside/to as one."""
    return [SAME_WORD.get(w, w) for w in text.lower().split() if w not in ARTICLES]


def goal_of(text: str) -> list[list[Any]]:
    """``"REL TYPE PLACE COUNT; ..."`` (config/voice_eval.yaml) as sorted goal lists."""
    return sorted([rel, obj, place, int(count)] for rel, obj, place, count in (g.split() for g in text.split(";")))


class Person:
    """Says the directives one after another, answers questions with the entry's answers (then
    "no"), and says a thing once more, slower, when the robot did not catch it."""

    def __init__(self, entries: list[dict], voices: list, repeat: list, folder: Path) -> None:
        self.entries, self.voices, self.repeat, self.folder = entries, voices, repeat, folder
        self.index = -1
        self.answers: list[str] = []
        self.said = 0
        self.spoken_as: dict[int, int] = {}  # stdin utterance number -> directive index
        self.last: tuple[str, bool] = ("", False)
        self.confirmations = {"yes": 0, "no": 0}

    def wav(self, text: str, voice: list) -> bytes:
        path = self.folder / f"{self.said:03d}.wav"
        subprocess.run(["espeak-ng", "-v", voice[0], "-s", str(voice[1]), "-w", str(path), text], check=True)
        return path.read_bytes()

    def next_turn(self, listening_for: str, robot_said: str) -> bytes | None:
        """The WAV to say now, or None when the person has nothing more to say."""
        voice = self.voices[max(self.index, 0) % len(self.voices)]
        if "Did you say: " in robot_said:  # yes when the robot read back what was said, articles aside
            read_back = robot_said.split("Did you say: ")[1].rstrip("?")
            text = "yes" if same_words(read_back) == same_words(self.last[0]) else "no"
            self.confirmations[text] += 1
            return self._say(text, voice, repeat=False, remember=False)
        repeat = robot_said.startswith(NOT_CAUGHT) and not self.last[1]
        if repeat:
            return self._say(self.last[0], self.repeat, repeat=True)
        if listening_for == "a directive":
            self.index += 1
            if self.index == len(self.entries):
                return None
            entry = self.entries[self.index]
            self.answers = list(entry.get("answers", []))
            return self._say(entry["say"], self.voices[self.index % len(self.voices)], repeat=False)
        return self._say(self.answers.pop(0) if self.answers else "no", voice, repeat=False)

    def _say(self, text: str, voice: list, repeat: bool, remember: bool = True) -> bytes:
        self.said += 1
        self.spoken_as[self.said] = self.index
        if remember:
            self.last = (text, repeat)
        return self.wav(text, voice)


@dataclass
class VoiceScore:
    """The figures of one run."""

    directives: int
    utterances: int = 0
    right: int = 0
    asked: int = 0
    refused: int = 0
    not_caught: int = 0
    read_back: int = 0
    wrong: list[tuple[str, str, list]] = field(default_factory=list)  # (said, heard as, goal executed)
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.directives} spoken directives ({self.utterances} utterances, {self.seconds:.0f} s): "
                f"executed right {self.right}, asked back {self.asked}, read back {self.read_back}, "
                f"refused {self.refused}, utterances not caught {self.not_caught}, wrong goals {len(self.wrong)}")


def score(log: dict[str, Any], entries: list[dict], person: Person, seconds: float) -> VoiceScore:
    """The figures of the front end's ``--json`` log, each exchange matched to the entry whose
    utterance it used."""
    result = VoiceScore(len(entries), seconds=seconds, read_back=sum(person.confirmations.values()))
    for exchange in log["exchanges"]:
        result.utterances += len(exchange["heard"])
        result.not_caught += sum(not h["used"] for h in exchange["heard"])
        used = [int(h["source"].split("#")[1]) for h in exchange["heard"] if h["used"]]
        if not used:
            continue
        entry = entries[person.spoken_as[used[0]]]
        result.asked += bool(exchange["questions"])
        result.refused += exchange["state"] == "refused"
        if exchange["state"] in EXECUTED:
            if sorted(exchange["goal"]) == goal_of(entry["goal"]):
                result.right += exchange["state"] == "succeeded"
            else:
                result.wrong.append((entry["say"], exchange["directive"], exchange["goal"]))
    return result


def converse(person: Person, command: list[str], transcript: Path, timeout_s: float) -> int:
    """Run the voice front end, feeding it the person's utterances as it listens; its exit code.
    Each line it prints goes to ``transcript`` and, for what the robot says and hears, to stdout."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdin is not None and proc.stdout is not None
    robot_said = ""
    deadline = time.monotonic() + timeout_s
    with transcript.open("w") as out:
        for raw in proc.stdout:
            line = raw.decode(errors="replace").rstrip()
            out.write(line + "\n")
            if line.startswith("robot: "):
                robot_said = line[len("robot: "):]
                print(f"  [{person.index + 1}/{len(person.entries)}] {line}", flush=True)
            elif line.startswith("heard"):
                print(f"  [{person.index + 1}/{len(person.entries)}] {line}", flush=True)
            elif line.startswith("listening for "):
                if time.monotonic() > deadline:
                    print(f"bench voice: stopped after --timeout-s {timeout_s:g} s", flush=True)
                    proc.stdin.close()
                    continue
                wav = person.next_turn(line[len("listening for "):], robot_said)
                if wav is None:
                    proc.stdin.close()
                else:
                    proc.stdin.write(wav)
                    proc.stdin.flush()
    return proc.wait(timeout=60)


def run(args: argparse.Namespace) -> int:
    if shutil.which("espeak-ng") is None:
        raise ConfigError("espeak-ng is not installed: scripts/setup.sh installs it as root (apt install espeak-ng)")
    data = yaml.safe_load(args.set.read_text())
    entries = data["directives"][:args.directives] if args.directives else data["directives"]
    if not entries:
        raise ConfigError(f"{args.set}: no directives to say (--directives {args.directives})")
    folder = Path(args.keep_audio or tempfile.mkdtemp(prefix="bench_voice_"))
    folder.mkdir(parents=True, exist_ok=True)
    person = Person(entries, data["voices"], data["repeat_voice"], folder)
    log = folder / "voice.json"
    command = [sys.executable, "-m", "llm_planner.cli", "voice", "--stdin-wav", "--say-wav", str(folder / "robot"),
               "--json", str(log), "--scene", args.scene, *(["--namespace", args.namespace] if args.namespace else [])]
    print(f"bench voice: {len(entries)} directive(s) of {args.set.name} said with eSpeak NG "
          f"({len(data['voices'])} voices), recognised by llm-planner voice (PocketSphinx) against the running "
          f"graph{' /' + args.namespace if args.namespace else ''}; audio and transcript in {folder}", flush=True)
    started = time.monotonic()
    code = converse(person, command, folder / "transcript.txt", args.timeout_s)
    if code != 0 or not log.is_file():
        raise ConfigError(f"llm-planner voice ended with exit code {code}; its output is in {folder / 'transcript.txt'}"
                          " (is the graph running? llm-planner launch)")
    result = score(json.loads(log.read_text()), entries, person, time.monotonic() - started)
    print(result.line())
    for said, heard, goal in result.wrong:
        print(f"  wrong goal: said {said!r}, heard {heard!r}, executed {goal}")
    if args.json is not None:
        args.json.write_text(json.dumps({"benchmark": "voice", "set": str(args.set), "scene": args.scene,
                                         "figures": {k: v for k, v in vars(result).items() if k != "wrong"},
                                         "wrong": result.wrong, "log": json.loads(log.read_text())}, indent=1))
        print(f"wrote {args.json}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("voice", help="spoken directives through llm-planner voice against the running graph",
                            description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=config_dir() / "voice_eval.yaml", metavar="FILE",
                        help="the spoken directives, their goals, answers and voices (default: config/voice_eval.yaml)")
    parser.add_argument("--directives", type=int, default=0, metavar="N", help="say only the first N (default: all)")
    parser.add_argument("--scene", default="apartment_seen", help="the apartment of the running graph")
    parser.add_argument("--namespace", default="", help="the graph's namespace")
    parser.add_argument("--keep-audio", type=Path, default=None, metavar="DIR",
                        help="keep the WAV files, the robot's speech and the transcript in DIR (default: a temp dir)")
    parser.add_argument("--timeout-s", type=float, default=1800.0,
                        help="stop saying new things after this long (default: 1800)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the figures and the log")
    parser.set_defaults(func=run)
