"""The verdict rule of docs/reproduction.md, written once for every reproduction script.

A reproduction compares the paper's *claims* (an order of strategies, the direction of a trend)
and the paper's *numbers* (ratios: speedups, gaps between strategies, fractions), each quoted
from the paper's text, with ours:
  same        every claim holds and every number is within TOLERANCE (relative) of the paper's
  same shape  every claim holds, but at least one number is further off (or none is comparable)
  different   a claim does not hold
Usage from a script's Python:
    sys.path.insert(0, "<dir of this file>"); from verdict import judge
    word, why = judge(claims=[("proact beats react", True)], numbers=[("speedup", 1.7, 1.5)])
"""

TOLERANCE = 0.25


def judge(claims, numbers=(), tolerance=TOLERANCE):
    """claims: [(text, holds)]; numbers: [(name, paper, ours)] -> (verdict word, why)."""
    failed = [text for text, holds in claims if not holds]
    notes = []
    off = []
    for name, paper, ours in numbers:
        if paper is None or ours is None or paper == 0:
            notes.append("%s: no comparable number" % name)
            continue
        rel = ours / paper - 1.0
        notes.append("%s paper %.3g ours %.3g (%+.0f%%)" % (name, paper, ours, 100 * rel))
        if abs(rel) > tolerance:
            off.append(name)
    if failed:
        return "different", "does not hold: " + "; ".join(failed) + (
            " | " + "; ".join(notes) if notes else "")
    held = "; ".join(text for text, _ in claims) or "no claim"
    if numbers and not off and len(notes) == len(numbers) and all(
            "no comparable" not in n for n in notes):
        return "same", held + " | " + "; ".join(notes)
    why = held + (" | " + "; ".join(notes) if notes else " | no number to compare")
    if off:
        why += " | beyond %d%%: %s" % (round(100 * tolerance), ", ".join(off))
    return "same shape", why


def line(word, why):
    """The verdict line every script ends with."""
    return "verdict: %s" % word if word != "different" else "verdict: different: %s" % why


if __name__ == "__main__":  # self-check: python3 verdict.py
    assert judge([("a", True)], [("x", 2.0, 2.2)])[0] == "same"
    assert judge([("a", True)], [("x", 2.0, 3.0)])[0] == "same shape"
    assert judge([("a", True)])[0] == "same shape"
    assert judge([("a", False)], [("x", 2.0, 2.0)])[0] == "different"
    assert judge([("a", True)], [("x", None, 2.0)])[0] == "same shape"
    print("verdict.py: ok")
