#!/usr/bin/env python3
"""Write a reproducible, adversarial UTF-8 corpus for tokenizer parity tests.

Why: the C++ tokenizer must agree with Hugging Face `tokenizers` on exactly
the inputs that break naive implementations -- every Unicode general
category, unusual whitespace and controls inside a line, combining marks,
emoji sequences, unassigned and private-use code points, very long words and
lines -- and on plenty of ordinary multilingual text.  Hand-picking that is
tedious and incomplete, so this script samples it from word lists and the
Unicode Character Database shipped as Debian packages (DEBIAN_PACKAGES).

    python tools/build_corpus.py --out FILE [--lines N] [--seed S]

The file is one text per line, separated by "\\n" only.  No line contains
"\\n" or "\\r", but lines DO contain other characters that some readers treat
as line breaks (\\x0b, \\x0c, \\x1c-\\x1e, U+0085, U+2028, U+2029): consumers
must split on b"\\n" and nothing else.  Output depends only on --seed, --lines
and the contents of the packaged data files.  The hard-case block always
comes first, so it is covered by any --lines value that is large enough.
"""

from __future__ import annotations

import argparse
import bisect
import bz2
import hashlib
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Debian packages providing the data read below; the set-up script installs
# exactly these (apt-get install -y ...).
DEBIAN_PACKAGES = (
    "wamerican",
    "unicode-data",
    "hunspell-en-us",
    "hunspell-fr",
    "hunspell-de-de",
    "hunspell-es",
    "hunspell-ru",
    "hunspell-el",
    "hunspell-ar",
    "hunspell-he",
    "hunspell-hi",
    "hunspell-th",
    "hunspell-ko",
    "hunspell-vi",
    "hunspell-tr",
    "hunspell-pl",
)

WORDS_FILE = Path("/usr/share/dict/american-english")
UNICODE_DIR = Path("/usr/share/unicode")
HUNSPELL_DIR = Path("/usr/share/hunspell")
# language -> dictionary base name under HUNSPELL_DIR
HUNSPELL = {
    "en": "en_US", "fr": "fr", "de": "de_DE", "es": "es_ES", "ru": "ru_RU", "el": "el_GR",
    "ar": "ar", "he": "he_IL", "hi": "hi_IN", "th": "th_TH", "ko": "ko", "vi": "vi_VN",
    "tr": "tr_TR", "pl": "pl_PL",
}

DEFAULT_LINES = 20000
DEFAULT_SEED = 20240601

# Whitespace and invisible characters that tokenizers disagree on most.
ODD_SPACES = ["\t", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680",
              "\u2000", "\u2002", "\u2003", "\u2007", "\u2009", "\u200a", "\u200b", "\u200c",
              "\u200d", "\u2028", "\u2029", "\u202f", "\u205f", "\u2060", "\u3000", "\ufeff",
              "\u180e", "\xad", "\u034f", "\u061c", "\u200e", "\u200f"]

# Strings that are special or added tokens in common tokenizer.json files
# (BERT, RoBERTa, GPT-2, T5, CLIP, MPNet); they must only match where the
# tokenizer's rules say so.
SPECIAL_STRINGS = ["[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]", "[cls]", "[Mask]", "[unused1]",
                   "<s>", "</s>", "<pad>", "<unk>", "<mask>", "<|endoftext|>", "<|startoftext|>",
                   "<extra_id_0>", "<extra_id_99>", "[SEP][SEP]", "[ CLS ]", "<s >"]

HARD_CASES = [
    "[CLS] hello [SEP]", "[MASK]", "hello[SEP]world", "[CLS][SEP][PAD][UNK][MASK]", "[cls] lower special",
    "[MASK]ed [MASK]s x[MASK]y", "<s>roberta</s> <pad> <unk> <mask>", "<|endoftext|>gpt<|endoftext|>",
    "don't", "can't won't shouldn't've y'all", "rock'n'roll O'Reilly", "ʼmodifier apostropheʼ",
    "U.S.A.", "e.g. i.e. etc. a.m. p.m.", "Mr. Dr. St. No. 5", "...", "…", "?!?!", "¿¡Qué!?",
    "ﬁ ligature", "ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ ﬓ", "İstanbul", "ı i İ I", "ǅ", "Ǆ ǅ ǆ Ǉ ǈ ǉ Ǌ ǋ ǌ Ǳ ǲ ǳ",
    "ß", "ẞ STRASSE Straße", "Å vs Å", "Å Å Å", "Ω Ω K K", "µ μ", "ſ long s", "ŉ ǰ ΐ ΰ",
    "ς σ Σ Σας", "ᾼ ᾳ ῼ", "１２３ full-width", "ＡＢＣ ａｂｃ ！？", "ｶﾀｶﾅ ﾊﾟ half-width", "a\u0301",
    "e\u0301\u0301\u0301 stacked", "\u0301 leading combining mark", "n\u0303 vs ñ", "ÉCOLE Élève",
    "ÀÉÎÕÜ àéîõü", "Ångström", "naïve café résumé", "ℌℑℜ ℂ ℕ ℙ", "𝐀𝐁𝐂 𝒜 𝔄 𝕬", "½ ¼ ¾ ⅓", "x² x³ H₂O",
    "Ⅻ ⅻ ① ⑳ ⒜", "㍿ ㎏ ㎞ ㏄", "™ ℠ © ®", "가 각 힣", "\u1100\u1161\u11a8 jamo", "ㄱ ㄴ ㄷ compat jamo",
    "中文、日本語。한국어！", "中文abc123混合", "ＣＪＫ\u3000ideographic space", "一丁 CJK", "𠀀𠀁 ext B",
    "\U0002a6d6 last ext B", "\u3400 ext A", "\uf900 compat ideograph", "\U0002f800 compat supplement",
    "\U00030000 ext G", "\u2e80 radical", "\u3005 々 iteration", "〇 ideographic zero",
    "soft\xadhyphen", "a\u200db zwj", "a\u200cb zwnj", "\ufeffBOM at start", "trailing BOM\ufeff",
    "tab\tinside", "NUL\x00inside", "DEL\x7finside", "NEL\x85inside", "LS\u2028inside",
    "PS\u2029inside", "a\x0bb\x0cc", "a\x1cb\x1dc\x1ed", "bell\x07 esc\x1b", "a\u3000b", "\u00a0nbsp\u00a0",
    "\u202ertl override\u202c", "\u2066isolate\u2069", "\u200e\u200f marks", "\U000e0001\U000e0041 tags",
    "\ufffd replacement", "\ufffe\uffff nonchars", "\U0010ffff max", "\ue000 private", "\U000f0000 plane15",
    "\u0378 unassigned", "\U000e01ef variation selector 256", "a\ufe0f text VS16",
    "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "🇺🇸🇬🇧🇯🇵", "🇺", "1️⃣ #️⃣ *️⃣", "©️ ®️ ™️",
    "🧑🏿\u200d🤝\u200d🧑🏻", "❤️\u200d🔥", "😀😃😄😁", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    "hello...world", "---", "— – ‒ ―", "$100.00", "€50 £3 ¥1000 ₹20 ₿1", "3.14", "1,000,000.00", "10^9",
    "1e-9 -0.0 +5 0x1F 0b1010", "٠١٢٣ ۴۵۶ ०१२ ๑๒๓", "user@example.com", "https://example.com/a?b=c&d=e#f",
    "C++ c# .NET node.js", "a+b=c", "#hashtag @mention", "“curly” ‘single’ «guillemets» „low“",
    "()[]{}<>", "\\backslash\\", "/slash/", "~`!@#$%^&*_-+=|;:'\",.?", "¡¿‽⁇⁈", "ǃ click", "׳ ״ ׀",
    "،؛؟ arabic punct", "।॥ danda", "。、「」『』【】〈〉", "﹏﹐﹑", "＿", "‿⁀⁔", "a_b__c___d",
    "HELLO hello Hello hElLo", "ΑΒΓ αβγ", "АБВ абв", "ﻻ ﻷ presentation forms", "ﷺ ﷽", "ﬀﬁﬂ", "Ꭰ Cherokee ꭰ",
    "ǉubljana", "ⓐⓑⓒ Ⓐ", "🄰🄱 🅐", "ᴬᴮᴰ small caps ᴀʙᴄ", "ʰʲʷ modifiers",
    "", " ", "  ", "\t", "\u3000", "\u200b", "\ufeff", "\x0b",
    # Byte-level BPE: contractions are matched case-sensitively, runs of
    # spaces keep their last space for the next word, and the byte-to-char
    # alphabet's own characters may also appear in the input.
    "'s 're 've 'm 'll 'd 't 'S 'RE 'Ve", "I'm you're he's they'd we'll it'S", "hello   world    !",
    "  leading", "trailing  ", " 1 12 123 1234 12345", "Ġhello Ċ ĉ ġ Ā ł", "\x7f\x80\x9f\xa0\xad\xff",
    # Metaspace and SentencePiece: the replacement character itself, and
    # spaces at every position relative to it.
    "▁", "▁▁▁", "▁hello ▁world", "hello▁world", " ▁ ", "▁ leading meta", "trailing meta ▁",
    # WordPiece: the continuing-subword prefix in the text, and words either
    # side of the 100-character limit.
    "##", "##ing un##able", "a" * 99, "a" * 100, "a" * 101, "é" * 100, "é" * 101, "😀" * 101,
    # Added tokens of the trained tokenizers (tools/train_tokenizers.py), with
    # every kind of neighbour for lstrip, rstrip, single_word and normalized.
    "<ls>", "  <ls>  x", "x  <ls>  y", "<rs>  x", "x<rs>  y", "and", "band and andes AND And",
    "and-and and_and (and)", "[SPECIAL]", "[special] [SPECIAL][SPECIAL]", "<added> <ADDED> <Added>",
    "New York new york NEW YORK NewYork", "<ls><rs><ls>", "\u3000<ls>\u3000", "\t<rs>\t",
    # Digits, punctuation and script boundaries (Digits, Punctuation and
    # UnicodeScripts pre-tokenizers).
    "abc123def4567", "１２３ ٠١٢ 123", "a.b,c;d:e!f?g", "..,,;;!!", "中文English한국어العربية",
    "日本語のテキスト", "Ελληνικά и русский", "mixed中文123混合abc", "a-b-c d_e_f g--h",
    # Split and Replace patterns of the trained tokenizers.
    "a--b", "--", "-a-", "x  y   z", "``quoted''", "tab\tand\tmore\ttabs",
]

# Scripts.txt names of scripts in everyday use, sampled more often than the
# historic ones.
LIVING_SCRIPTS = ["Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Syriac", "Thaana", "Devanagari",
                  "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala",
                  "Thai", "Lao", "Tibetan", "Myanmar", "Georgian", "Hangul", "Ethiopic", "Cherokee",
                  "Canadian_Aboriginal", "Khmer", "Mongolian", "Hiragana", "Katakana", "Bopomofo", "Han", "Yi",
                  "Tifinagh", "Nko", "Javanese", "Adlam", "Ol_Chiki", "Vai"]

# Strings the trained tokenizers declare as added tokens
# (tools/train_tokenizers.py reads them from here), so the corpus is sure to
# contain them in many contexts.
ADDED_TOKEN_STRINGS = ["[SPECIAL]", "<added>", "<ls>", "<rs>", "and", "New York", "<mask>", "[MASK]"]


@dataclass
class Unicode:
    """Sampling pools built from UnicodeData.txt and the emoji data files."""

    pools: dict[str, list[int]] = field(default_factory=dict)
    ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    emoji: list[str] = field(default_factory=list)
    zwj: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    skin: list[str] = field(default_factory=list)
    keycaps: list[str] = field(default_factory=list)
    variations: list[str] = field(default_factory=list)
    # Scripts.txt: letters and marks of each script with at least a few letters.
    script_letters: dict[str, list[int]] = field(default_factory=dict)
    script_marks: dict[str, list[int]] = field(default_factory=dict)
    # NormalizationTest.txt: strings whose NFC/NFD/NFKC/NFKD forms differ.
    normalization: list[str] = field(default_factory=list)

    def char(self, rng: random.Random, pool: str) -> str:
        if pool in self.ranges:
            # Ranges are weighted by size so sampling is uniform over code points.
            rs = self.ranges[pool]
            total = sum(b - a + 1 for a, b in rs)
            k = rng.randrange(total)
            for a, b in rs:
                if k <= b - a:
                    return chr(a + k)
                k -= b - a + 1
        return chr(rng.choice(self.pools[pool]))

    def names(self) -> list[str]:
        return sorted(set(self.pools) | set(self.ranges))


def _load_unicode() -> Unicode:
    u = Unicode()
    assigned: list[tuple[int, int]] = []
    by_cat: dict[str, list[int]] = {}
    by_prefix = {p: [] for p in ("LATIN", "GREEK", "CYRILLIC", "ARABIC", "HEBREW", "DEVANAGARI", "THAI",
                                 "HIRAGANA", "KATAKANA", "HANGUL", "GEORGIAN", "ARMENIAN", "ETHIOPIC",
                                 "BENGALI", "TAMIL", "TIBETAN", "MONGOLIAN", "CHEROKEE", "MATHEMATICAL",
                                 "FULLWIDTH", "HALFWIDTH", "CIRCLED", "BOX DRAWINGS", "BRAILLE")}
    latin_accented: list[int] = []
    first = None
    for line in (UNICODE_DIR / "UnicodeData.txt").read_text(encoding="utf-8").splitlines():
        f = line.split(";")
        cp, name, cat, decomp = int(f[0], 16), f[1], f[2], f[5]
        if name.endswith(", First>"):
            first = cp
            continue
        if name.endswith(", Last>"):
            assigned.append((first, cp))
            if cat != "Cs":  # surrogates cannot be encoded in UTF-8
                key = "range:" + name[1:-len(", Last>")].lower().replace(" ", "_")
                u.ranges.setdefault(key, []).append((first, cp))
            continue
        assigned.append((cp, cp))
        by_cat.setdefault(cat, []).append(cp)
        for p, lst in by_prefix.items():
            if name.startswith(p + " "):
                lst.append(cp)
        if name.startswith("LATIN") and cat[0] == "L" and (" WITH " in name or decomp):
            latin_accented.append(cp)

    for cat, cps in by_cat.items():
        if cat in ("Cs",):
            continue  # surrogates cannot be encoded in UTF-8
        u.pools["cat:" + cat] = [c for c in cps if c not in (0x0A, 0x0D)]
    for p, cps in by_prefix.items():
        u.pools["script:" + p.lower().replace(" ", "_")] = cps
    u.pools["latin_accented"] = latin_accented
    u.pools["punctuation"] = sorted(c for cat in ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po")
                                    for c in by_cat.get(cat, []))
    u.pools["symbols"] = sorted(c for cat in ("Sm", "Sc", "Sk", "So") for c in by_cat.get(cat, []))
    u.pools["marks"] = sorted(c for cat in ("Mn", "Mc", "Me") for c in by_cat.get(cat, []))
    u.pools["digits"] = by_cat["Nd"] + by_cat["No"] + by_cat["Nl"]
    u.pools["spaces"] = [ord(c) for c in ODD_SPACES]
    u.pools["noncharacters"] = list(range(0xFDD0, 0xFDF0)) + [
        (plane << 16) | low for plane in range(17) for low in (0xFFFE, 0xFFFF)]
    u.ranges["cjk"] = [(0x4E00, 0x9FFF)]
    u.ranges["cjk_ext_a"] = [(0x3400, 0x4DBF)]
    u.ranges["cjk_ext_b"] = [(0x20000, 0x2A6DF)]
    u.ranges["cjk_compat"] = [(0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]
    u.ranges["hangul_syllables"] = [(0xAC00, 0xD7A3)]
    u.ranges["private_use"] = [(0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)]

    # Unassigned: gaps between assigned entries, minus surrogates and
    # noncharacters (which have their own pool).
    excluded = [(0xD800, 0xDFFF), (0xFDD0, 0xFDEF)] + [((p << 16) | 0xFFFE, (p << 16) | 0xFFFF) for p in range(17)]
    u.ranges["unassigned"] = _subtract([(0, 0x10FFFF)], sorted(assigned + excluded))
    _load_emoji(u)
    _load_scripts(u, {cat: set(cps) for cat, cps in by_cat.items()})
    _load_normalization_tests(u)
    return u


def _load_scripts(u: Unicode, by_cat: dict[str, set[int]]) -> None:
    letters = set().union(*(cps for cat, cps in by_cat.items() if cat[0] == "L"))
    marks = set().union(*(cps for cat, cps in by_cat.items() if cat[0] == "M"))
    for line in (UNICODE_DIR / "Scripts.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        cps, script = (x.strip() for x in line.split(";"))
        a, _, b = cps.partition("..")
        for cp in range(int(a, 16), int(b or a, 16) + 1):
            if cp in letters:
                u.script_letters.setdefault(script, []).append(cp)
            elif cp in marks:
                u.script_marks.setdefault(script, []).append(cp)
    u.script_letters = {k: v for k, v in u.script_letters.items() if len(v) >= 10}


def _load_normalization_tests(u: Unicode) -> None:
    # Every part: specific cases, each character with a decomposition, and
    # the canonical-ordering sequences of combining marks.
    text = bz2.decompress((UNICODE_DIR / "NormalizationTest.txt.bz2").read_bytes()).decode("utf-8")
    for line in text.splitlines():
        if not line or line.startswith(("#", "@")):
            continue
        source = "".join(chr(int(x, 16)) for x in line.split(";")[0].split())
        if "\n" not in source and "\r" not in source:
            u.normalization.append(source)


def _subtract(ranges: list[tuple[int, int]], holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive ranges minus sorted inclusive holes."""
    out = []
    for a, b in ranges:
        for h0, h1 in holes:
            if h1 < a or h0 > b:
                continue
            if h0 > a:
                out.append((a, h0 - 1))
            a = max(a, h1 + 1)
            if a > b:
                break
        if a <= b:
            out.append((a, b))
    return out


def _load_emoji(u: Unicode) -> None:
    for line in (UNICODE_DIR / "emoji/emoji-test.txt").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or ";" not in line:
            continue
        cps = [int(x, 16) for x in line.split(";")[0].split()]
        s = "".join(map(chr, cps))
        u.emoji.append(s)  # fully-, minimally- and unqualified forms alike
        if 0x200D in cps:
            u.zwj.append(s)
        if any(0x1F3FB <= c <= 0x1F3FF for c in cps):
            u.skin.append(s)
        if len(cps) == 2 and all(0x1F1E6 <= c <= 0x1F1FF for c in cps) or 0xE007F in cps:
            u.flags.append(s)
        if 0x20E3 in cps:
            u.keycaps.append(s)
    for line in (UNICODE_DIR / "emoji/emoji-variation-sequences.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and ";" in line:
            u.variations.append("".join(chr(int(x, 16)) for x in line.split(";")[0].split()))


def _read_hunspell(base: str) -> list[str]:
    """Raw entry lines of a .dic file, decoded with the charset its .aff declares."""
    aff = (HUNSPELL_DIR / f"{base}.aff").read_bytes()
    encoding = "ISO8859-1"  # hunspell's default when SET is absent
    for raw in aff.splitlines():
        if raw.startswith(b"SET"):
            encoding = raw.split()[1].decode("ascii")
            break
    lines = (HUNSPELL_DIR / f"{base}.dic").read_bytes().decode(encoding, errors="replace").splitlines()
    # Line 1 is the entry count; lines starting with tab/space or '#' are comments.
    return [line for line in lines[1:] if line and not line[0].isspace() and not line.startswith("#")]


def _hunspell_word(entry: str) -> str:
    """Strip the /FLAGS affix part and morphological fields; '\\/' is a literal slash."""
    word = entry.split("\t")[0].split(" ")[0]
    out, i = [], 0
    while i < len(word):
        if word[i] == "\\" and i + 1 < len(word) and word[i + 1] == "/":
            out.append("/")
            i += 2
            continue
        if word[i] == "/":
            break
        out.append(word[i])
        i += 1
    return "".join(out)


class Corpus:
    def __init__(self, rng: random.Random, allow_missing: bool) -> None:
        self.rng = rng
        self.uni = _load_unicode()
        self.english = [w for w in WORDS_FILE.read_text(encoding="utf-8").splitlines() if w]
        self.langs: dict[str, list[str]] = {}
        for lang, base in HUNSPELL.items():
            if not (HUNSPELL_DIR / f"{base}.dic").is_file():
                if allow_missing:
                    print(f"warning: missing hunspell dictionary {base}; skipped", file=sys.stderr)
                    continue
                raise SystemExit(f"missing {HUNSPELL_DIR}/{base}.dic; apt-get install -y {' '.join(DEBIAN_PACKAGES)}")
            self.langs[lang] = _read_hunspell(base)
        self.lang_names = sorted(self.langs)
        self.script_pools = [p for p in self.uni.names() if p.startswith(("script:", "range:"))] + [
            "latin_accented", "cjk", "cjk_ext_a", "cjk_ext_b", "cjk_compat", "hangul_syllables"]
        self.odd_pools = ["cat:Cc", "cat:Cf", "cat:Zs", "cat:Zl", "cat:Zp", "cat:Lt", "cat:Lm",
                          "marks", "punctuation", "symbols", "digits", "spaces", "noncharacters",
                          "private_use", "unassigned"]

    # ---- building blocks
    def en_word(self) -> str:
        return self.rng.choice(self.english)

    def lang_word(self, lang: str | None = None) -> str:
        lang = lang or self.rng.choice(self.lang_names)
        entries = self.langs[lang]
        for _ in range(10):
            word = _hunspell_word(entries[self.rng.randrange(len(entries))])
            if word and not word.isdigit():
                return word
        return word

    def chars(self, pool: str, n: int) -> str:
        return "".join(self.uni.char(self.rng, pool) for _ in range(n))

    def emoji(self) -> str:
        r = self.rng.random()
        src = (self.uni.zwj if r < 0.3 else self.uni.skin if r < 0.5 else self.uni.flags if r < 0.65
               else self.uni.keycaps if r < 0.7 else self.uni.emoji)
        return self.rng.choice(src)

    def space(self) -> str:
        return " " if self.rng.random() < 0.8 else self.rng.choice(ODD_SPACES)

    def join(self, parts: list[str], odd: float = 0.0) -> str:
        out = []
        for i, p in enumerate(parts):
            if i:
                out.append(self.rng.choice(ODD_SPACES) if self.rng.random() < odd else " ")
            out.append(p)
        return "".join(out)

    def number(self) -> str:
        r, rng = self.rng.random(), self.rng
        if r < 0.2:
            return str(rng.randint(0, 10 ** rng.randint(1, 12)))
        if r < 0.35:
            return f"{rng.uniform(-1e4, 1e4):.{rng.randint(0, 6)}f}"
        if r < 0.45:
            return f"{rng.randint(1, 999):,}".replace(",", rng.choice([",", ".", " ", "\u202f", "'"])) + \
                f",{rng.randint(0, 999):03d}"
        if r < 0.55:
            return f"{rng.uniform(0, 10):.3e}"
        if r < 0.65:
            return f"{rng.randint(1900, 2100)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if r < 0.75:
            return f"{rng.randint(0, 100)}%"
        if r < 0.85:
            return f"+{rng.randint(1, 99)} ({rng.randint(100, 999)}) {rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
        return self.chars("cat:Nd", rng.randint(1, 8))

    def url_or_code(self) -> str:
        rng, w = self.rng, lambda: self.en_word().lower().replace("'", "")
        templates = [
            lambda: f"https://www.{w()}.com/{w()}/{w()}?q={w()}&page={rng.randint(1, 99)}#{w()}",
            lambda: f"http://{w()}.{rng.choice(['org', 'net', 'io', 'de', 'co.uk'])}/{w()}_{w()}.html",
            lambda: f"{w()}.{w()}{rng.randint(1, 99)}@{w()}.{rng.choice(['com', 'org', 'edu'])}",
            lambda: f"ftp://{w()}:{w()}@192.168.{rng.randint(0, 255)}.{rng.randint(0, 255)}:{rng.randint(1, 65535)}/",
            lambda: f"def {w()}_{w()}(self, {w()}: int = {rng.randint(0, 9)}) -> None: return {w()}[{rng.randint(0, 9)}]",
            lambda: f"for (int i = 0; i < {w()}.size(); ++i) {{ {w()} += {w()}[i] * 0x{rng.randint(0, 65535):04X}; }}",
            lambda: f"SELECT {w()}, COUNT(*) FROM {w()} WHERE {w()} >= {rng.randint(0, 99)} GROUP BY 1;",
            lambda: f"<a href=\"/{w()}\" class='{w()}-{w()}'>{w()} &amp; {w()}</a>",
            lambda: f"{{\"{w()}\": [{rng.randint(0, 9)}, {rng.random():.3f}, null, true], \"{w()}\": \"{w()}\"}}",
            lambda: f"C:\\Users\\{w()}\\{w()}.txt && /usr/local/{w()}/bin/{w()} --{w()}={rng.randint(0, 9)}",
            lambda: f"{w()}CamelCase{w().capitalize()}  snake_case_{w()}  kebab-{w()}-{w()}  SCREAMING_{w().upper()}",
            lambda: f"#{w()} @{w()} $${w().upper()} {w()}++ --{w()} {w()}->{w()}::{w()}",
        ]
        return rng.choice(templates)()

    def long_word(self) -> str:
        # 99-102 straddle WordPiece's default limit of 100 characters per word.
        target = self.rng.choice([99, 100, 101, 102, 150, 201, 250, 400, 1000, 3000])
        kind = self.rng.random()
        if kind < 0.35:
            s = ""
            while len(s) < target:
                s += self.en_word().replace("'", "")
            s = s[:target]
        elif kind < 0.5:
            s = self.chars(self.rng.choice(["latin_accented", "script:cyrillic", "script:greek"]), target)
        elif kind < 0.6:
            s = self.chars("cjk", target)  # CJK never forms a single WordPiece word
        elif kind < 0.67:
            s = "".join(str(self.rng.randint(0, 9)) for _ in range(target))
        elif kind < 0.75:
            # Four-byte characters: byte and character offsets differ most.
            s = self.chars(self.rng.choice(["cjk_ext_b", "private_use"]), target)
        elif kind < 0.85:
            # Letters with marks: long for the model, longer still after NFD.
            s = "".join(self.chars("latin_accented", 1) + self.chars("marks", self.rng.randint(0, 2))
                        for _ in range(target // 2))
        else:
            s = self.rng.choice("abcxyz") * target
        return s

    # ---- line generators
    def g_english(self) -> str:
        words = [self.en_word() for _ in range(self.rng.randint(1, 30))]
        s = self.join(words)
        r = self.rng.random()
        s = s.upper() if r < 0.05 else s.capitalize() if r < 0.6 else s
        return s + self.rng.choice([".", "!", "?", "", "...", ";", ":"])

    def g_foreign(self) -> str:
        lang = self.rng.choice(self.lang_names)
        s = self.join([self.lang_word(lang) for _ in range(self.rng.randint(1, 25))])
        return s + self.rng.choice([".", "", "!", "?", "。", "؟", "।"])

    def g_mixed_language(self) -> str:
        parts = [self.lang_word() if self.rng.random() < 0.6 else self.en_word()
                 for _ in range(self.rng.randint(2, 20))]
        return self.join(parts, odd=0.1)

    def g_script(self) -> str:
        pool = self.rng.choice(self.script_pools)
        words = [self.chars(pool, self.rng.randint(1, 12)) for _ in range(self.rng.randint(1, 8))]
        return self.join(words)

    def g_odd(self) -> str:
        parts = []
        for _ in range(self.rng.randint(1, 12)):
            r = self.rng.random()
            if r < 0.45:
                parts.append(self.chars(self.rng.choice(self.odd_pools), self.rng.randint(1, 4)))
            elif r < 0.7:
                parts.append(self.en_word())
            else:
                parts.append(self.chars(self.rng.choice(self.script_pools), self.rng.randint(1, 5)))
        return "".join(p + self.space() for p in parts).rstrip(" ")

    def g_soup(self) -> str:
        # Uniform over all code points: mostly unassigned planes, which is
        # exactly where lookup tables run out.
        out = []
        for _ in range(self.rng.randint(1, 30)):
            c = self.rng.randrange(0x110000)
            if 0xD800 <= c <= 0xDFFF or c in (0x0A, 0x0D):
                c = 0xFFFD
            out.append(chr(c))
        return "".join(out)

    def g_combining(self) -> str:
        out = []
        for _ in range(self.rng.randint(1, 10)):
            base = self.chars(self.rng.choice(["latin_accented", "script:latin", "script:greek",
                                               "script:cyrillic", "script:arabic", "script:devanagari"]), 1)
            out.append(base + self.chars("marks", self.rng.randint(0, 4)) + self.space())
        return "".join(out).rstrip(" ")

    def g_emoji(self) -> str:
        parts = [self.emoji() if self.rng.random() < 0.6 else self.en_word()
                 for _ in range(self.rng.randint(1, 12))]
        return self.join(parts) if self.rng.random() < 0.7 else "".join(parts)

    def g_punct(self) -> str:
        parts = []
        for _ in range(self.rng.randint(1, 10)):
            w = self.en_word()
            parts.append(self.chars("punctuation", self.rng.randint(0, 2)) + w +
                         self.chars("punctuation", self.rng.randint(0, 3)))
        return self.join(parts) if self.rng.random() < 0.6 else "".join(parts)

    def g_numbers(self) -> str:
        parts = [self.number() if self.rng.random() < 0.6 else self.en_word()
                 for _ in range(self.rng.randint(1, 12))]
        return self.join(parts)

    def g_url_code(self) -> str:
        return self.join([self.url_or_code() for _ in range(self.rng.randint(1, 3))])

    def g_special(self) -> str:
        parts = [self.rng.choice(SPECIAL_STRINGS) if self.rng.random() < 0.4 else self.en_word()
                 for _ in range(self.rng.randint(1, 10))]
        return self.join(parts) if self.rng.random() < 0.6 else "".join(parts)

    def g_whitespace(self) -> str:
        words = [self.en_word() for _ in range(self.rng.randint(1, 12))]
        return self.join(words, odd=0.8) + self.rng.choice(["", " ", "  ", "\t", "\u3000"])

    def g_case(self) -> str:
        words = [self.lang_word(self.rng.choice(["fr", "de", "es", "tr", "el", "ru", "pl", "vi"]))
                 for _ in range(self.rng.randint(1, 10))]
        f = self.rng.choice([str.upper, str.lower, str.title, str.swapcase])
        return self.join([f(w) for w in words])

    def g_long_word(self) -> str:
        return self.join([self.en_word(), self.long_word(), self.en_word()])

    def g_long_line(self) -> str:
        target = self.rng.randint(2000, 9000)
        parts, n = [], 0
        gens = [self.g_english, self.g_foreign, self.g_script, self.g_emoji, self.g_numbers]
        while n < target:
            p = self.rng.choice(gens)()
            parts.append(p)
            n += len(p) + 1
        return " ".join(parts)

    def g_repeat(self) -> str:
        unit = self.rng.choice(["a", "ab", "!", ".", "-", "=", "ha", "0", "😀", "👍🏽", "中", "é", "e\u0301",
                                "[SEP]", "\u200b", " ", "\t", "ß", "ﬁ", self.en_word(), "▁", "Ġ", "##", "<ls>",
                                "and", "\u0301", "\u3000", "\xa0", "1", "12", "'s", "--", "<unk>", "\U00020000",
                                "\ufe0f", "\u200d", "🇺", "ǅ", "İ", "\x85", self.chars("marks", 1),
                                self.chars(self.rng.choice(self.script_pools), 1)])
        sep = self.rng.choice(["", "", " ", "\t", "\u3000"])
        return sep.join([unit] * self.rng.randint(2, self.rng.choice([10, 50, 400, 2000])))

    def g_blank(self) -> str:
        return self.rng.choice(["", "", " ", "  ", " " * self.rng.randint(3, 50), "\t", " \t ",
                                "\u3000", "\xa0", "\u200b", "\ufeff", "\u2003 \u2003"])

    def g_script_text(self) -> str:
        # Pseudo-words of one script (Scripts.txt) with that script's own
        # combining marks: Indic vowel signs, Hebrew points, Arabic harakat...
        pool = LIVING_SCRIPTS if self.rng.random() < 0.6 else sorted(self.uni.script_letters)
        script = self.rng.choice([x for x in pool if x in self.uni.script_letters])
        letters = self.uni.script_letters[script]
        marks = self.uni.script_marks.get(script, []) + self.uni.script_marks.get("Inherited", [])[:5]
        words = []
        for _ in range(self.rng.randint(1, 12)):
            w = []
            for _ in range(self.rng.randint(1, 10)):
                w.append(chr(self.rng.choice(letters)))
                if marks and self.rng.random() < 0.35:
                    w.append(chr(self.rng.choice(marks)))
            words.append("".join(w))
        sep = self.rng.choice([" ", " ", " ", "", "\u3000", "\xa0"])
        return sep.join(words)

    def g_normalization(self) -> str:
        # Composed, decomposed and compatibility forms whose NFC, NFD, NFKC
        # and NFKD all differ, alone or inside words.
        parts = []
        for _ in range(self.rng.randint(1, 8)):
            n = self.rng.choice(self.uni.normalization)
            r = self.rng.random()
            parts.append(n if r < 0.5 else self.en_word() + n if r < 0.75 else n + self.en_word())
        return self.join(parts) if self.rng.random() < 0.7 else "".join(parts)

    def g_combining_heavy(self) -> str:
        r = self.rng.random()
        if r < 0.3:  # "zalgo": many marks on each letter
            return "".join(self.en_word()[0] + self.chars("marks", self.rng.randint(3, 30))
                           for _ in range(self.rng.randint(1, 12)))
        if r < 0.6:  # marks on things that are not letters
            bases = [" ", "1", ".", "-", "😀", "中", "\t", "\u3000", "_", "'", "▁", "ﬁ", "가", "\u200d", ""]
            return "".join(self.rng.choice(bases) + self.chars("marks", self.rng.randint(1, 3)) + self.en_word()
                           for _ in range(self.rng.randint(1, 8)))
        if r < 0.8:  # a line that starts or ends with marks
            marks = self.chars("marks", self.rng.randint(1, 5))
            return marks + self.en_word() if self.rng.random() < 0.5 else self.en_word() + " " + marks
        # Hangul: conjoining jamo sequences, complete and broken.
        out = []
        for _ in range(self.rng.randint(1, 8)):
            out.append(chr(self.rng.randint(0x1100, 0x1112)) + chr(self.rng.randint(0x1161, 0x1175)) +
                       (chr(self.rng.randint(0x11A8, 0x11C2)) if self.rng.random() < 0.5 else ""))
            if self.rng.random() < 0.3:
                out.append(chr(self.rng.randint(0x11A8, 0x11C2)))
        return "".join(out)

    def g_emoji_sequences(self) -> str:
        r = self.rng.random()
        if r < 0.3:  # runs without spaces
            return "".join(self.emoji() for _ in range(self.rng.randint(2, 20)))
        if r < 0.5:  # sequences broken apart: dangling ZWJ, lone modifiers, odd flags
            pieces = ["\u200d", "\U0001f3fb", "\U0001f3ff", "\ufe0f", "\ufe0e", "\u20e3", "\U0001f1fa",
                      "\U000e0067", "\U000e007f"]
            return "".join(self.rng.choice(pieces + [self.emoji(), self.en_word()]) for _ in range(self.rng.randint(2, 12)))
        if r < 0.7:  # text and emoji presentation selectors
            return self.join([self.rng.choice(self.uni.variations) for _ in range(self.rng.randint(1, 10))])
        parts = [self.emoji() + self.en_word() if self.rng.random() < 0.5 else self.en_word() + self.emoji()
                 for _ in range(self.rng.randint(1, 8))]
        return self.join(parts)

    def g_whitespace_runs(self) -> str:
        def run() -> str:
            return "".join(self.rng.choice(ODD_SPACES + [" ", " ", " "]) for _ in range(self.rng.randint(1, 8)))
        words = [self.en_word() if self.rng.random() < 0.7 else self.lang_word()
                 for _ in range(self.rng.randint(0, 8))]
        body = "".join(w + run() for w in words)
        return (run() if self.rng.random() < 0.5 else "") + body

    def g_probe(self) -> str:
        # Inputs aimed at specific components of the trained and shared
        # tokenizers: SentencePiece's ▁, byte-level characters, contractions,
        # WordPiece prefixes, digit runs and the added tokens in every
        # position relative to spaces and words.
        probes = ["▁", "▁▁", "Ġ", "Ċ", "##", "</w>", "'s", "'S", "'ll", "'", "''", "<unk>", "<0x41>", "<0xFF>",
                  "[UNK]", "[CLS]", "[SEP]", "<s>", "</s>", "<pad>", "[PAD]"] + ADDED_TOKEN_STRINGS
        parts = []
        for _ in range(self.rng.randint(1, 10)):
            r = self.rng.random()
            if r < 0.45:
                p = self.rng.choice(probes)
                case = self.rng.random()
                p = p.upper() if case < 0.1 else p.lower() if case < 0.2 else p
                parts.append(p)
            elif r < 0.55:
                parts.append(str(self.rng.randint(0, 10 ** self.rng.randint(1, 15))))
            elif r < 0.85:
                parts.append(self.en_word())
            else:
                parts.append(self.chars(self.rng.choice(["punctuation", "symbols", "spaces"]), self.rng.randint(1, 3)))
        out = []
        for p in parts:
            out.append(p)
            out.append(self.rng.choice(["", " ", " ", "  ", "\t", "\u3000", "-", "_"]))
        return "".join(out)

    def generate(self, n: int) -> list[str]:
        gens = [  # (weight, generator)
            (18, self.g_english), (14, self.g_foreign), (6, self.g_mixed_language), (8, self.g_script),
            (7, self.g_odd), (3, self.g_soup), (5, self.g_combining), (7, self.g_emoji), (5, self.g_punct),
            (6, self.g_numbers), (5, self.g_url_code), (4, self.g_special), (4, self.g_whitespace),
            (3, self.g_case), (3, self.g_long_word), (1, self.g_long_line), (2, self.g_repeat),
            (2, self.g_blank), (10, self.g_script_text), (4, self.g_normalization), (4, self.g_combining_heavy),
            (4, self.g_emoji_sequences), (3, self.g_whitespace_runs), (8, self.g_probe),
        ]
        cum = []
        total = 0
        for w, _ in gens:
            total += w
            cum.append(total)
        lines = list(HARD_CASES[:n])
        while len(lines) < n:
            gen = gens[bisect.bisect_right(cum, self.rng.randrange(total))][1]
            lines.append(gen())
        return lines


# Malformed UTF-8 byte strings for --with-invalid-utf8: truncated, overlong,
# encoded surrogate, out of range, stray continuation, 0xFE/0xFF.
INVALID_UTF8 = [b"truncated \xe4\xb8", b"overlong \xc0\xaf slash", b"surrogate \xed\xa0\x80 half",
                b"too big \xf4\x90\x80\x80", b"stray \x80 continuation", b"\xfe\xff bytes",
                b"valid \xc3\xa9 then bad \xc3", b"\xff"]
# Byte sequences that are never valid UTF-8 whatever follows them (the
# generated lines put an ASCII byte after each).
BAD_BYTES = [b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf",
             b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80",
             b"\xfe", b"\xff", b"\xc3", b"\xe4\xb8", b"\xf0\x9f\x98", b"\xf0\x9f"]
INVALID_GENERATED = 100


def invalid_utf8_lines(corpus: "Corpus", n: int) -> list[bytes]:
    """Corpus-like text with malformed sequences at the start, middle and end."""
    out = []
    for _ in range(n):
        words = [w.encode("utf-8") for w in corpus.g_mixed_language().split(" ")]
        for _ in range(corpus.rng.randint(1, 3)):
            words.insert(corpus.rng.randint(0, len(words)), corpus.rng.choice(BAD_BYTES) + b"x")
        line = b" ".join(words).replace(b"\n", b" ").replace(b"\r", b" ")
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            out.append(line)
            continue
        raise AssertionError(f"meant to be invalid UTF-8: {line!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output file")
    ap.add_argument("--lines", type=int, default=DEFAULT_LINES, help=f"line count (default {DEFAULT_LINES})")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--allow-missing", action="store_true",
                    help="skip hunspell dictionaries that are not installed (output then differs)")
    ap.add_argument("--with-invalid-utf8", action="store_true",
                    help=f"also append {len(INVALID_UTF8) + INVALID_GENERATED} lines that are NOT valid UTF-8")
    args = ap.parse_args(argv)

    corpus = Corpus(random.Random(args.seed), args.allow_missing)
    lines = corpus.generate(args.lines)
    data = bytearray()
    for line in lines:
        assert "\n" not in line and "\r" not in line, repr(line)
        data += line.encode("utf-8", "strict") + b"\n"
    if args.with_invalid_utf8:
        # A separate generator: the valid lines do not depend on this flag.
        corpus.rng = random.Random(args.seed + 1)
        for raw in INVALID_UTF8 + invalid_utf8_lines(corpus, INVALID_GENERATED):
            data += raw + b"\n"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(bytes(data))
    count = data.count(b"\n")
    print(f"{count} lines ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}) -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
