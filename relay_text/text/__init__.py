"""Text every stage may produce: types written out (`type_text`), "did you
mean" suggestions (`suggest`) and counted nouns (`wording`). It depends on `ir` only, so the checker, the
operators and the evaluator use it without reaching into `syntax`."""
