"""What the quoted-figures tests share (test_quoted_figures_*.py, one module per paper and one for
the other benchmarks): the figures that the reproduction ledger (this folder's README.md),
benchmarks/README.md and the docs quote, read from the results files they come from. Each
module's ``QUOTES`` entry is a sentence of a document with ``{}`` where the figures stand, the
results file, and the figures' paths in it (``/``-separated keys; an int is a list index) with
their format (a format string, or a function of the value; a function may also turn it into the
word that a comparison in the text uses, such as 'above' or 'loses to'). The test formats each
figure from the file and finds the sentence in the document (whitespace normalised), so a re-run
that changes a figure, or an edit that changes the text, fails until both agree."""

import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"  # speed and peers
PAPER_RESULTS = ROOT / "benchmarks" / "papers" / "results"  # the papers' experiments


def _results(name: str) -> Path:
  """A results file, from the papers' folder or the speed benchmarks'."""
  return PAPER_RESULTS / name if (PAPER_RESULTS / name).exists() else RESULTS / name


NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
]


NUMBER_WORDS += ["thirteen", "fourteen", "fifteen", "sixteen"]


def _sci(x: float) -> str:
  """7.5e-7, not 7.5e-07."""
  return f"{x:.1e}".replace("e-0", "e-")


def _power_of_ten(n: int) -> str:
  """10^6 for 1000000."""
  exponent = round(math.log10(n))
  assert 10**exponent == n, n
  return f"10^{exponent}"


def _word(n: int) -> str:
  return NUMBER_WORDS[n]


def _read(record: dict, path: str):
  value = record
  for key in path.split("/"):
    value = value[int(key)] if isinstance(value, list) else value[key]
  return value


def _normalised(text: str) -> str:
  return re.sub(r"\s+", " ", text)


def check(document: str, sentence: str, results: str, figures: list) -> None:
  """The sentence of ``document`` with its figures read from ``results`` is in the document."""
  record = json.loads(_results(results).read_text())
  values = [fmt(_read(record, path)) if callable(fmt) else fmt.format(_read(record, path)) for path, fmt in figures]
  want = _normalised(sentence.format(*values))
  text = _normalised((ROOT / document).read_text())
  assert want in text, f"{document} should say: {want!r} (from {_results(results)})"


def quoted_test(quotes: list):
  """The parametrised test of a module's ``QUOTES``."""

  @pytest.mark.parametrize("document, sentence, results, figures", quotes, ids=[q[1][:40] for q in quotes])
  def test_a_quoted_figure_is_the_results_file_s(document, sentence, results, figures):
    check(document, sentence, results, figures)

  return test_a_quoted_figure_is_the_results_file_s


def all_quotes() -> list:
  """Every module's ``QUOTES`` (test_sourced_sentences.py reads the sentences checked exactly)."""
  import importlib  # pylint: disable=import-outside-toplevel

  here = Path(__file__).resolve().parent
  return [
    q for path in sorted(here.glob("test_quoted_figures_*.py")) for q in importlib.import_module(path.stem).QUOTES
  ]
