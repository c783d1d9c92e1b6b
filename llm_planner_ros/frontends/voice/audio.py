"""Audio in for the spoken loop: WAV files, WAV files back to back on a stream, or the microphone
(ALSA's ``arecord``), each utterance as 16-bit mono PCM at the recogniser's rate."""
from __future__ import annotations

import io
import shutil
import subprocess
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import BinaryIO

import numpy as np
from scipy.signal import resample_poly

from llm_planner.errors import LlmPlannerError


@dataclass(frozen=True)
class Utterance:
    """One utterance: 16-bit mono PCM at ``rate`` Hz, and where it came from (a file name, "stdin #3")."""

    pcm: bytes
    rate: int
    source: str


def read_wav(data: bytes | Path, source: str, rate: int) -> Utterance:
    """A PCM WAV (any rate, mono or stereo, 8/16/32-bit) as an :class:`Utterance` at ``rate`` Hz;
    LlmPlannerError saying what is wrong with a file that is no such WAV."""
    try:
        with wave.open(io.BytesIO(data) if isinstance(data, bytes) else str(data), "rb") as wav:
            width, channels, original = wav.getsampwidth(), wav.getnchannels(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError, OSError) as exc:
        raise LlmPlannerError(f"{source}: not a PCM WAV file ({exc}); record 16-bit PCM, e.g. "
                              "`arecord -f S16_LE -r 16000 -c 1 FILE.wav`") from None
    dtype = {1: np.uint8, 2: np.int16, 4: np.int32}.get(width)
    if dtype is None:
        raise LlmPlannerError(f"{source}: {8 * width}-bit samples are not supported (use 8, 16 or 32-bit PCM)")
    samples = np.frombuffer(frames, dtype=dtype).astype(np.float64)
    if width == 1:
        samples = (samples - 128.0) * 256.0
    elif width == 4:
        samples /= 65536.0
    samples = samples.reshape(-1, channels).mean(axis=1)
    if original != rate:
        common = gcd(original, rate)
        samples = resample_poly(samples, rate // common, original // common)
    return Utterance(np.clip(samples, -32768, 32767).astype("<i2").tobytes(), rate, source)


def wav_files(paths: list[Path], rate: int) -> Iterator[Utterance]:
    """The utterances of ``paths``, in order."""
    for path in paths:
        yield read_wav(Path(path), str(path), rate)


def wav_stream(stream: BinaryIO, rate: int) -> Iterator[Utterance]:
    """WAV files sent back to back on ``stream`` (each RIFF header gives its length), until it ends."""
    count = 0
    while True:
        header = stream.read(8)
        if not header:
            return
        if len(header) < 8 or header[:4] != b"RIFF":
            raise LlmPlannerError(f"stdin: expected a WAV file (RIFF header) as utterance {count + 1}, got "
                                  f"{header[:4]!r}; send whole WAV files one after another")
        size = int.from_bytes(header[4:8], "little")
        body = stream.read(size)
        count += 1
        yield read_wav(header + body, f"stdin #{count}", rate)


def microphone(rate: int, seconds: float) -> Iterator[Utterance]:
    """Utterances from the default ALSA capture device: ``arecord`` records up to ``seconds`` per
    utterance (end an utterance with a pause of that length; Ctrl-C stops)."""
    arecord = shutil.which("arecord")
    if arecord is None:
        raise LlmPlannerError("no microphone input: arecord is missing (Debian package alsa-utils); "
                              "or give recordings with --wav FILE... or --stdin-wav")
    count = 0
    while True:
        count += 1
        print(f"(listening for up to {seconds:g} s)", flush=True)
        done = subprocess.run([arecord, "-q", "-f", "S16_LE", "-c", "1", "-r", str(rate), "-t", "wav",
                               "-d", str(max(1, round(seconds)))], capture_output=True, check=False)
        if done.returncode != 0:
            raise LlmPlannerError(f"arecord failed: {done.stderr.decode(errors='replace').strip()}")
        yield read_wav(done.stdout, f"microphone #{count}", rate)
