"""Token-window chunking as Sieve's (src/search/chunker.cpp), for the corpus
builder's chunk counts and the Python peer.

Windows of at most `size` tokens (no special tokens), each next one starting
`overlap` tokens before the previous one ended; where the window allows,
boundaries fall between words rather than between pieces of one word (a
window gives up at most half its tokens to end on a word boundary). Tokens
without a span cannot bound a chunk. A chunk's text is the original text
from its first token's start to its last token's end.
"""

from __future__ import annotations


def chunk_spans(offsets: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """(begin, end) offsets in the text of the chunks of a text whose tokens have `offsets`."""
    if size <= 0 or overlap >= size:
        raise ValueError("need 0 <= overlap < size")
    tokens = [o for o in offsets if o[1] > o[0]]
    n = len(tokens)
    chunks: list[tuple[int, int]] = []
    if n == 0:
        return chunks

    def inside_word(i: int) -> bool:
        # A token that touches the one before it continues the same word.
        return 0 < i < n and tokens[i][0] <= tokens[i - 1][1]

    start = 0
    while True:
        stop = min(start + size, n)
        if stop < n:
            word_stop = stop
            while word_stop > start + size // 2 and inside_word(word_stop):
                word_stop -= 1
            if not inside_word(word_stop):
                stop = word_stop
        chunks.append((tokens[start][0], max(t[1] for t in tokens[start:stop])))
        if stop >= n:
            break
        nxt = max(stop - overlap if stop > overlap else 0, start + 1)
        word_start = nxt
        while word_start > start + 1 and inside_word(word_start):
            word_start -= 1
        if not inside_word(word_start):
            nxt = word_start
        start = nxt
    return chunks
