"""Every sentence of the prose that states a measured result names its results file, and its numbers
are in that file.

The convention (benchmarks/papers/README.md, "Sources of the sentences"): a sentence that states a
result is followed, in its paragraph, list item or table cell, by an HTML comment
``<!-- results: NAME.json[, NAME.json] -->`` (a name in benchmarks/papers/results or
benchmarks/results). A tag covers the sentences before it in its paragraph back to the previous
tag. The detector fails on a sentence that looks like a result (a number with a unit such as s,
ms, x, %, mbb/g or MB, or a comparative word with a number beside it; in the ledgers every
comparative or universal word) and has no tag; the number check fails on a number of a tagged
sentence found neither in its files (to the rounding its digits show, in the file's units or in
% / milli- / M) nor in a sentence a test_quoted_figures_*.py reads exactly. Non-result numbers (years,
figure and section numbers, game sizes, versions, hardware, commands) are removed first by the
patterns of NOT_RESULTS."""

import json
import math
import re
from pathlib import Path

import pytest

from quoted_figures import _normalised, _read, _results, all_quotes

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [
  "README.md",
  "notebooks/README.md",
  "benchmarks/README.md",
  "benchmarks/papers/README.md",
  *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
]
LEDGERS = {"benchmarks/README.md", "benchmarks/papers/README.md"}  # every sentence there is about results
TAG = re.compile(r"<!--\s*(not )?results:\s*([^>]*?)\s*-->")
NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?"
UNIT = re.compile(
  rf"(?<![\w.^]){NUMBER}\s?(?:ms|us|µs|s|x|%|mbb/g|mb/h|sb/h|MB|GB|GiB|MiB|milli-chips|chips|minutes|hours|seconds)(?!\w)"
)
COMPARATIVE = (
  r"faster|slower|quicker|lower|higher|fewer|less exploitable|more exploitable|beats?|loses to|outperforms?|"
  r"below|above|better|worse|ahead|behind|smaller|larger"
)
UNIVERSAL = r"every|even|reproduced|reproduces|always|never|all"
WORDS = re.compile(rf"\b(?:{COMPARATIVE})\b", re.I)
LEDGER_WORDS = re.compile(rf"\b(?:{COMPARATIVE}|{UNIVERSAL})\b", re.I)
# Numbers that are not results: removed before the detector and the number check look.
NOT_RESULTS = [
  r"\b(?:rows?|sections?)\s+`[^`]*`\s+(?:above|below)\b",  # cross-references
  r"\b(?:the )?(?:table|rows?|list|sections?|notes?|curves?|agents?)\s+(?:above|below)\b|\((?:see )?(?:above|below)\b",
  r"`[^`]*`",  # code: commands, names, settings
  r"\]\([^)]*\)",  # a link's target
  r"https?://\S+",
  r"\b(?:19|20)\d\d\b",  # years
  r"\b(?:Figures?|Tables?|sections?|chapters?|Algorithm|eq\.|rows?|issue|step|Theorem|Lemma|Proposition|Item)"
  r"\s+\d[\d.]*(?:\s*(?:-|to|and|,)\s*\d[\d.]*)*",  # the papers' and our own numbering
  r"\b\w+\+?\([\d, =\w.]*\)",  # a game or a strategy's parameters: OCP(500), PAM(3,3,11), CFR(10)
  r"\b(?:float|int)(?:16|32|64)\b",
  r"\b[HA]\d{2,3}\b",  # H100, H200, A60, A80
  r"\b\d+-(?:core|bit|card|player|way|step|round|action|chip)s?\b",
  r"\b\d+ x [\d,]+\b",  # a grid's shape, a count of rounds
  r"\b2\^\d+\b",
  r"\bplayers? [01]\b",  # a power of two stated as a limit of float32
  r"\b95% (?:confidence )?intervals?\b",
  r"\b\d[\d,.]*(?: million)? (?:histories|infosets|information sets|public nodes|sequences|decisions|folds|showdowns|pairs|payoff pairs|rows)\b",  # sizes
  r"\bmore/fewer/equal\b",
  r"\bstacks? (?:of )?[\d,]+|\b(?:small|big) blind \d+|\b\d+ chips? (?:in rounds|per player)\b",  # the rules of a game
  r"\bevery \d[\d,.]* (?:seconds|s|ms|iterations)\b|\bpConf \d[\d.]*",  # settings
  r"\bv?\d+\.\d+\.\d+\b",  # versions
  r"\b(?:the goal is|goals? of|the [\w-]+ goal)\s?[\d.,]*(?: and [\d.,]+)?\s?(?:x|s|ms|%)?",  # goals set, not measured
]
NOT_RESULT = re.compile("|".join(f"(?:{p})" for p in NOT_RESULTS))
SCALES = (1, 100, 0.01, 1000, 0.001, 1e6, 1e-6, 1e-9, 2**-30)  # the file's units, %, milli-, M, G from bytes


def _prose(text: str) -> str:
  """The text without fenced code blocks (their lines kept empty, so line numbers hold)."""
  return re.sub(r"```.*?```", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)


def _table_tag(lines: list, i: int) -> str:
  """The tag on the line directly above or below the table that holds line ``i``, or ''."""
  above, below = i, i
  while above > 0 and lines[above - 1].strip().startswith("|"):
    above -= 1
  while below + 1 < len(lines) and lines[below + 1].strip().startswith("|"):
    below += 1
  edges = [lines[j].strip() for j in (above - 1, below + 1) if 0 <= j < len(lines)]
  return next((edge for edge in edges if TAG.fullmatch(edge)), "")


def _blocks(text: str):
  """(line, block, cell): each paragraph or list item, and each cell of a table row (with the table's
  tag, from the line above or below it, after the cell's own text)."""
  lines = _prose(text).split("\n")
  start, para = 0, []
  for i, line in enumerate(lines + [""]):
    stripped = line.strip()
    if stripped.startswith("#") or TAG.fullmatch(stripped):
      stripped = ""  # headings name, and a tag on its own line belongs to the table beside it
    if stripped.startswith("|"):
      header = i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|-: ") and "-" in lines[i + 1]
      if not set(stripped) <= set("|-: ") and not header:
        for cell in re.split(r"(?<!\\)\|", stripped)[1:-1]:
          yield i + 1, f"{cell} {_table_tag(lines, i)}", True
      stripped = ""
    new_item = re.match(r"([-*]|\d+\.)\s", stripped)
    if (not stripped or new_item) and para:
      yield start + 1, " ".join(para), False
      para = []
    if stripped:
      if not para:
        start = i
      para.append(stripped)


def _sentences(block: str):
  """(sentence, files, quoted): the block cut into sentences, each with the files of the tag that covers
  it (None when no tag follows it in the block) and the numbers the tag says are quoted from a paper or a
  peer's publication (``<!-- results: a.json; quoted: 319.5 -->``), not measured here."""
  out, covered = [], 0
  block = re.sub(r"`[^`]*`", lambda code: code.group().replace("<!--", "<!-"), block)  # a tag quoted as code
  for piece in re.split(r"(<!--.*?-->)", block):
    tag = TAG.fullmatch(piece.strip())
    if tag:
      names, _, paper = tag.group(2).partition("; quoted:")
      files = [] if tag.group(1) else [name.strip() for name in names.split(",") if name.strip()]
      paper = {number.strip() for number in paper.split(",") if number.strip()}
      out[covered:] = [(s, files, paper) for s, *_ in out[covered:]]
      covered = len(out)
    elif not piece.startswith("<!--"):
      out += [(s, None, set()) for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(*`\[])", piece) if s.strip()]
  return out


def _result_looking(sentence: str, ledger: bool, cell: bool = False) -> bool:
  """Whether a sentence looks like a result: a number with a unit, a comparative word beside a number
  (in a ledger, any comparative or universal word), or a table cell with a fraction or thousands."""
  text = NOT_RESULT.sub(" ", sentence)
  if UNIT.search(text) or (cell and re.search(r"\d\.\d|\d,\d{3}|\de-?\d", text)):
    return True
  words = LEDGER_WORDS if ledger else WORDS
  return bool(words.search(text)) and (ledger or re.search(r"\d", text) is not None)


def _units():
  """(document, line, sentence, files, paper) for every result-looking sentence of the prose."""
  for document in DOCUMENTS:
    for line, block, cell in _blocks((ROOT / document).read_text()):
      for sentence, files, paper in _sentences(block):
        if _result_looking(sentence, document in LEDGERS, cell):
          yield document, line, sentence, files, paper


def _numbers(sentence: str) -> list:
  """The numbers of a sentence as written, after the non-result ones are removed."""
  text = NOT_RESULT.sub(" ", sentence)
  text = re.sub(r"\b10\^(\d+)", lambda m: f"1e{m.group(1)}", text)
  found = re.findall(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?)(?![\d.,]\d|\d)(?=x\b|%|[^\w(]|$)", text)
  return [n.rstrip(",") for n in found if n.rstrip(",") not in ("0", "1")]


def _in_file(number: str, values: set) -> bool:
  """Whether some value of a results file rounds to ``number`` as written (half a unit of its last
  digit either side), in the file's units or, for a fraction or a count of 1,000 or more, in one of
  SCALES (an integer is never scaled up, and small integers and numbers in names never scaled)."""
  mantissa, _, exponent = number.replace(",", "").partition("e")
  decimals = len(mantissa.partition(".")[2])
  target = float(mantissa) * 10 ** int(exponent or 0)
  tolerance = 0.5001 * 10 ** (int(exponent or 0) - decimals)
  for value, kind in values:
    scales = (
      SCALES if kind == "float" else (1,) if kind == "text" or abs(value) < 1000 else [x for x in SCALES if x <= 1]
    )
    if any(abs(abs(value) * scale - target) <= tolerance for scale in scales):
      return True
  return False


def _seeds(value) -> bool:
  """Whether a value is a seed, a list of seeds or a dict of them."""
  if isinstance(value, dict):
    return all(_seeds(item) for item in value.values())
  if isinstance(value, list):
    return all(isinstance(item, int) for item in value)
  return isinstance(value, int)


def _walk(value, found: set) -> None:
  """(number, kind) of a record: "float" or "int" leaves, "text" for numbers in keys and strings; the
  seeds are left out (a list of seeds would match any small count)."""
  if isinstance(value, dict):
    for key, item in value.items():
      if "seed" not in key.lower() or not _seeds(item):
        found.update((float(n), "text") for n in re.findall(r"\d+(?:\.\d+)?", key))
        _walk(item, found)
  elif isinstance(value, list):
    for item in value:
      _walk(item, found)
    if len(value) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
      found.add((float(value[0] + value[1]), "float" if any(isinstance(x, float) for x in value) else "int"))
  elif isinstance(value, str):
    found.update((float(n), "text") for n in re.findall(r"\d+(?:\.\d+)?", value))
  elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
    found.add((float(value), "float" if isinstance(value, float) else "int"))


def _file_values(name: str) -> set:
  """Every number of a results file with its kind (``_walk``); a two-player pair's sum too."""
  found = set()
  _walk(json.loads(_results(name).read_text()), found)
  return found


def _cpp_over_ours(game: str):
  """cfr_speed_cpu.json: OpenSpiel's C++ CFR+ time per iteration over jaxcfr's, as 234."""

  def ratio(record: dict) -> str:
    timings = record["results"]["games"][game]
    ours = timings["jaxcfr_float32"]["ms_per_iteration"]
    return f"{timings['peers']['openspiel_cpp']['timing']['ms_per_iteration'] / ours:.0f}"

  return ratio


def _batch_ratio(numerator: str, denominator: str):
  """cfr_speed_cpu.json: one batch layout's time per iteration over another's, as 0.61."""

  def ratio(record: dict) -> str:
    batches = record["results"]["batches"]
    return f"{batches[numerator]['ms_per_iteration'] / batches[denominator]['ms_per_iteration']:.2f}"

  return ratio


def _small_deck_ratio(street: str):
  """public_tree_small_deck_peer.json: the slower representation's time over the faster one's, as 7.0."""

  def ratio(record: dict) -> str:
    peer = record["results"]["small_deck_openspiel_peer"][street]
    times = [peer[f"{form}_cfr_plus_float32"]["ms_per_iteration"] for form in ("public_tree", "sequence_form")]
    return f"{max(times) / min(times):.1f}"

  return ratio


# Derived figures that a tagged sentence states, computed from its results file.
DERIVED = [
  *(("benchmarks/README.md", "cfr_speed_cpu.json", _cpp_over_ours(g)) for g in ("leduc_poker", "liars_dice")),
  ("benchmarks/README.md", "cfr_speed_cpu.json", _cpp_over_ours("goofspiel(num_cards=5,imp_info=True)")),
  ("benchmarks/README.md", "cfr_speed_cpu.json", _batch_ratio("sharded_64", "trailing_64")),
  ("benchmarks/README.md", "cfr_speed_cpu.json", _batch_ratio("library_sharded_64", "library_64")),
  ("docs/design.md", "cfr_speed_cpu.json", _batch_ratio("sharded_64", "trailing_64")),
  *(("docs/design.md", "public_tree_small_deck_peer.json", _small_deck_ratio(street)) for street in ("turn", "river")),
]


def _derived(document: str, files: list) -> set:
  return {
    derive(json.loads(_results(name).read_text())) for doc, name, derive in DERIVED if doc == document and name in files
  }


def _quoted_spans() -> dict:
  """Per document, the sentences the test_quoted_figures_*.py modules check exactly, as they read in it."""
  spans = {}
  for document, sentence, results, figures in all_quotes():
    record = json.loads(_results(results).read_text())
    values = [fmt(_read(record, p)) if callable(fmt) else fmt.format(_read(record, p)) for p, fmt in figures]
    spans.setdefault(document, []).append(_normalised(sentence.format(*values)))
  return spans


UNITS = list(_units())


def test_every_result_sentence_names_its_results_file():
  untagged = [f"{d}:{line}: {s[:120]}" for d, line, s, files, _ in UNITS if files is None]
  assert not untagged, "a result without <!-- results: ... -->:\n" + "\n".join(untagged)


def test_the_tagged_files_exist():
  missing = {name for _, _, _, files, _ in UNITS for name in files or () if not _results(name).exists()}
  assert not missing, missing


def test_each_number_of_a_tagged_sentence_is_in_its_files():
  spans, cache, unfound = _quoted_spans(), {}, []
  for document, line, sentence, files, paper in UNITS:
    if not files or not all(_results(name).exists() for name in files):
      continue
    values = set().union(*(cache.setdefault(n, _file_values(n)) for n in files))
    quoted = " ".join(s for s in spans.get(document, []) if s in _normalised(sentence) or _normalised(sentence) in s)
    for number in _numbers(sentence):
      verified = number in _numbers(quoted) or number in paper or number in _derived(document, files)
      if not verified and not _in_file(number, values):
        unfound.append(f"{document}:{line}: {number} not in {files}: {sentence[:100]}")
  assert not unfound, "\n".join(unfound)


@pytest.mark.parametrize(
  "sentence, ledger, looks",
  [
    ("CFR+ runs 2.3x faster than CFR.", False, True),
    ("The run took 58.2 s on one core.", False, True),
    ("exploitability 12.5 mbb/g after 1,000 iterations", False, True),
    ("CFR+ converges faster than CFR.", False, False),  # no number: a claim about the method
    ("CFR+ converges faster than CFR.", True, True),  # in a ledger, every comparison is about results
    ("Figure 3.1 of Chelarescu (2019) on OCP(500) in float32.", False, False),
    ("a 13 x 13 grid of hands on a 2-core CPU", False, False),
    ("run `jaxcfr solve leduc_poker --iterations 1000 --timeout 30s`", False, False),
  ],
)
def test_the_detector(sentence, ledger, looks):
  assert _result_looking(sentence, ledger) is looks


def test_a_tag_covers_the_sentences_before_it_in_its_block():
  block = "Kuhn takes 1.2 s. Leduc takes 30 s. <!-- results: a.json --> Goof takes 9 s."
  assert [files for _, files, _ in _sentences(block)] == [["a.json"], ["a.json"], None]
  assert _sentences("The paper's 319.5 against our 83.9. <!-- results: a.json; quoted: 319.5 -->")[0][2] == {"319.5"}


def test_a_number_is_found_to_its_rounding():
  values = {(0.03412, "float"), (2158.4, "float"), (0.2191, "float"), (144, "int"), (44855079936, "int")}
  assert _in_file("0.034", values) and _in_file("2,158", values) and _in_file("21.9", values)
  assert not _in_file("0.036", values) and not _in_file("2,170", values)
  assert _in_file("144", values) and not _in_file("1.44", values) and _in_file("44.9", values)  # bytes in GB
  assert _numbers("after 10^5 iterations on OCP(500) (Figure 2, 2009): 4.6e7 nodes") == ["1e5", "4.6e7"]
  assert _numbers("2.5x faster, 21.9% of 2,184 on H100") == ["2.5", "21.9", "2,184"]
