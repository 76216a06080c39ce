"""Every number README.md and docs/ print that the code produces is the code's: claim and statement-index counts
from the registry, the claims that apply to the walk-through's models from the audit, verdict counts from the
check `.ci/run` runs first. ``python scripts/doc_numbers.py --write`` rewrites them."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("doc_numbers", ROOT / "scripts" / "doc_numbers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["doc_numbers"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


doc_numbers = _script()
REWRITE = "python scripts/doc_numbers.py --write"


def _stale(numbers: dict, keys) -> list[str]:
    """The places whose numbers in ``keys`` disagree with ``numbers``, or that a page no longer prints once."""
    out = []
    for f in doc_numbers.compare(numbers):
        if not set(f.place.keys) & set(keys):
            continue
        if f.found != 1:
            out.append(f"{f.place.page}: '{f.place.template}' printed {f.found} times")
        out += [f"{f.place.page}: {k} is {old}, the code gives {new}" for k, (old, new) in f.stale.items() if k in keys]
    return out


def test_every_place_a_page_prints_a_computed_number_is_printed_once():
    """A place reworded away would silently stop being checked: each is found exactly once on its page."""
    missing = [f"{f.place.page}: '{f.place.template}'" for f in doc_numbers.compare({}) if f.found != 1]
    assert missing == [], f"reword the page or the place in scripts/doc_numbers.py: {missing}"


def test_claim_and_statement_index_counts_in_the_docs_are_the_registrys():
    numbers = doc_numbers.registry_numbers()
    keys = {*numbers, *(k + "_word" for k in numbers)}
    assert _stale(numbers, keys) == [], f"run `{REWRITE}`"


def test_the_claims_that_apply_to_the_walkthrough_models_are_the_audits():
    """docs/monitoring.md's GRU and orthogonal RNN and docs/auditing-an-lstm.md's LSTM: the counts of applicable
    and not-applicable claims, and the parameters, are those rnnaudit.audit gives their architectures."""
    numbers = doc_numbers.applicability_numbers()
    assert _stale(numbers, numbers) == [], f"run `{REWRITE}`"


def test_the_verdict_counts_in_the_docs_are_those_of_the_check_run():
    """audit-report/results.json is the README's first command, which .ci/run runs before the tests; a run of
    another commit or of other claims is not compared (in CI it must be there and current)."""
    results = ROOT / "audit-report" / "results.json"
    numbers, why = doc_numbers.verdict_numbers(results)
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs `rnnaudit check --out audit-report` before the tests: {why}")
        pytest.skip(why)
    assert _stale(numbers, numbers) == [], f"run `{REWRITE}`"


def test_a_stale_number_is_reported_and_rewritten():
    """The negative control: a page that says 176 claims where the registry has 177 is caught, and the rewrite
    puts the registry's number in, keeping the page's words and line breaks."""
    (place,) = [p for p in doc_numbers.PLACES if p.page == "README.md"]
    text = "intro checks 176 claims over\nnine papers: 1 hold, 2 are false, 3 are misprinted, 4 is vacuous. End."
    numbers = {"claims": 177, "papers": 9, "holds": 1, "false": 2, "misprinted": 3, "vacuous": 5}
    (finding,) = [f for f in doc_numbers.compare(numbers, {p.page: text for p in doc_numbers.PLACES})
                  if f.place == place]
    assert finding.stale == {"claims": ("176", "177"), "vacuous": ("4", "5")}
    assert doc_numbers.rewrite(text, place, numbers) == ("intro checks 177 claims over\nnine papers: 1 hold, 2 are "
                                                         "false, 3 are misprinted, 5 is vacuous. End.")
    assert doc_numbers.rewrite(text, place, {"claims": 177}) == text.replace("176", "177")  # the rest is kept
