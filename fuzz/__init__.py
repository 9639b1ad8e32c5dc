"""relay-text's fuzzer: hostile and generated input against `relay check`, `fmt` and `run`.

    python -m fuzz --minutes 30                  # every mode, a share of the time each
    python -m fuzz --minutes 5 --mode comments --seed 7
    python -m fuzz --replay fuzz/findings/<finding>/minimized.rly

Not part of the installed package (the wheel holds relay_text only).
"""
