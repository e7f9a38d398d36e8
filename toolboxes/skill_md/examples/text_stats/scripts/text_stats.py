"""Word, line and sentence statistics of a text, printed as JSON (the text-stats skill)."""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("text")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--min-length", type=int, default=1)
    parser.add_argument("--ignore-case", action="store_true")
    args = parser.parse_args()
    text = args.text
    words = WORD.findall(text)
    counted = [w.lower() if args.ignore_case else w for w in words if len(w) >= args.min_length]
    # Most frequent first; ties in order of first appearance, so the output is deterministic.
    top = sorted(Counter(counted).items(), key=lambda kv: (-kv[1], counted.index(kv[0])))
    print(
        json.dumps(
            {
                "characters": len(text),
                "words": len(words),
                "lines": len(text.splitlines()) if text else 0,
                "sentences": len(re.findall(r"[.!?]+(?:\s|$)", text)),
                "top_words": [[w, n] for w, n in top[: max(args.top, 0)]],
            }
        )
    )


if __name__ == "__main__":
    main()
