"""Text to speech with eSpeak NG (Debian ``espeak-ng``): to the speaker, or to numbered WAV files."""
from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

from llm_planner.errors import LlmPlannerError

INSTALL = "install it with `apt-get install espeak-ng` (scripts/setup.sh does when it runs as root)"


def espeak() -> str:
    """The espeak-ng program; LlmPlannerError saying how to install it when it is missing."""
    program = shutil.which("espeak-ng")
    if program is None:
        raise LlmPlannerError(f"espeak-ng is missing: {INSTALL}")
    return program


def synthesise(text: str, path: Path, voice: str, words_per_minute: int) -> Path:
    """Speak ``text`` into the WAV file ``path`` (22.05 kHz mono); the path."""
    done = subprocess.run([espeak(), "-v", voice, "-s", str(words_per_minute), "-w", str(path), text],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not path.is_file():
        raise LlmPlannerError(f"espeak-ng could not say {text!r} with voice {voice!r}: {done.stderr.strip()}")
    return path


class Speaker:
    """The robot's voice: each line to the speaker, or (``wav_dir``) to ``wav_dir/NNN.wav``; every line
    is printed too, and the written files are listed in ``written``."""

    def __init__(self, voice: str, words_per_minute: int, wav_dir: Path | None = None) -> None:
        self.voice, self.words_per_minute, self.wav_dir = voice, words_per_minute, wav_dir
        self.written: list[tuple[str, Path]] = []
        self._numbers = itertools.count(1)
        espeak()
        if wav_dir is not None:
            wav_dir.mkdir(parents=True, exist_ok=True)

    def say(self, text: str) -> None:
        print(f"robot: {text}", flush=True)
        if self.wav_dir is None:
            done = subprocess.run([espeak(), "-v", self.voice, "-s", str(self.words_per_minute), text],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise LlmPlannerError(f"espeak-ng could not speak: {done.stderr.strip()}")
            return
        path = synthesise(text, self.wav_dir / f"{next(self._numbers):03d}.wav", self.voice, self.words_per_minute)
        self.written.append((text, path))
