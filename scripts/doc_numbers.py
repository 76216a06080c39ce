"""The numbers in README.md and docs/ that rnnaudit's own code produces, computed from the code, and every place
that prints one.

    python scripts/doc_numbers.py           # the numbers, and each place that disagrees (exit 1 if one does)
    python scripts/doc_numbers.py --write   # rewrite those places in README.md and docs/

Claim and statement-index counts come from the registry, and the claims that apply to the walk-through's models
from ``rnnaudit.audit`` (which claims apply is a matter of the architecture: the audit of a freshly initialised
model gives them, ``measure_bounds=False``, in seconds). Verdict counts come from a quick check of every paper,
``audit-report/results.json`` (the README's first command; ``--results`` names another): without it, the places
that print verdict counts are listed as not checked. tests/test_doc_numbers.py runs the same comparison.
Measured times are not here: the docs give each with its date, commit and machine.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")


@dataclass(frozen=True)
class Place:
    """Where a page prints numbers: ``template`` is the page's own words, with ``{key}`` for each number (a key
    ending in ``_word`` is written as an English word). Line breaks and runs of spaces in the page match any
    whitespace, so rewrapping a paragraph keeps the place."""

    page: str
    template: str

    @property
    def keys(self) -> list[str]:
        return re.findall(r"\{(\w+)\}", self.template)

    def pattern(self) -> re.Pattern:
        out = []
        for literal, key in re.findall(r"([^{]*)(?:\{(\w+)\})?", self.template):
            out.append(r"\s+".join(re.escape(w) for w in literal.split(" ")))
            if key:
                out.append(rf"(?P<{key}>[a-z]+)" if key.endswith("_word") else rf"(?P<{key}>\d[\d,]*)")
        return re.compile("".join(out))


#: Every place in README.md and docs/ that prints a number the code produces.
PLACES = (
    Place("README.md", "checks {claims} claims over {papers_word} papers: {holds} hold, {false} are false, "
                       "{misprinted} are misprinted, {vacuous} is vacuous"),
    Place("docs/findings.md", "{claims} claims over {papers_word} papers: {holds} hold, {false} are false, "
                              "{misprinted} are misprinted, {vacuous} is vacuous. The {seed_papers_word} seed papers "
                              "have {seed_claims} of them ({seed_holds} hold, {seed_false} false, {seed_misprinted} "
                              "misprinted, {seed_vacuous} vacuous); the classic papers they build on have "
                              "{classic_claims} ({classic_holds} hold, {classic_false} false); the modern "
                              "recurrences' papers have {modern_claims} ({modern_holds} hold, {modern_false} false)"),
    Place("docs/findings.md", "{coverage_checked} entries are checked, and {coverage_not_checkable} are not checkable"),
    Place("docs/findings.md", "{findings} entries record a finding"),
    Place("docs/check.md", "`--quick` (default) checks {claims} claims"),
    Place("docs/monitoring.md", "| trainable parameters | {gru_parameters} | {ornn_parameters} |"),
    Place("docs/monitoring.md", "| claims that apply | {gru_applies}: `nc_gru.theorem1_torch`"),
    Place("docs/monitoring.md", "| {ornn_applies}: `spectral_rnn.lemma3`"),
    Place("docs/monitoring.md", "| not applicable | {gru_not_applicable}, each with its reason; `nc_gru.theorem1` "
                                "because torch applies the reset gate after W_hn h | {ornn_not_applicable} |"),
    Place("docs/monitoring.md", "{ornn_applies} claims apply to the orthogonal `nn.RNN`"),
    Place("docs/monitoring.md", "Of the other {ornn_not_applicable}, {ornn_own_cases} are checked on their own "
                                "constructed cases only"),
    Place("docs/auditing-an-lstm.md", "{lstm_applies} claims apply to it"),
)

#: Keys that need a check run's results.json.
VERDICT_KEYS = frozenset({"holds", "false", "misprinted", "vacuous", "seed_holds", "seed_false", "seed_misprinted",
                          "seed_vacuous"})


def registry_numbers() -> dict[str, int]:
    """Claim counts by paper group and the statement index's counts, from the registry."""
    from rnnaudit.bounds import CLAIMS_BY_PAPER, PAPERS, coverage
    from rnnaudit.names import CLASSIC_PAPERS, MODERN_PAPERS, SEED_PAPERS

    index = Counter(row["status"] for row in coverage())
    return {"claims": sum(len(c) for c in CLAIMS_BY_PAPER.values()), "papers": len(PAPERS),
            "seed_papers": len(SEED_PAPERS), "seed_claims": sum(len(CLAIMS_BY_PAPER[p]) for p in SEED_PAPERS),
            "classic_claims": sum(len(CLAIMS_BY_PAPER[p]) for p in CLASSIC_PAPERS),
            "modern_claims": sum(len(CLAIMS_BY_PAPER[p]) for p in MODERN_PAPERS),
            "coverage_checked": index["checked"], "coverage_not_checkable": index["not checkable"],
            "findings": sum(row["finding"] is not None for row in coverage())}


def walkthrough_models() -> dict:
    """The models of docs/monitoring.md (examples/walkthrough.py: h = 64 on the digits, one input) and of
    docs/auditing-an-lstm.md (``nn.LSTM(1, 32)``), freshly initialised."""
    from torch import nn

    return {"gru": nn.GRU(1, 64, batch_first=True),
            "ornn": nn.utils.parametrizations.orthogonal(nn.RNN(1, 64, batch_first=True), "weight_hh_l0"),
            "lstm": nn.LSTM(1, 32, batch_first=True)}


#: What an audit says of a claim checked only on its own constructed cases (rnnaudit.bounds.architectures).
OWN_CASES = "checked on its own constructed cases only"


def applicability_numbers() -> dict[str, int]:
    """Per walk-through model: its trainable parameters, the claims that apply, those that do not, and how many of those are checked on
    their own constructed cases only (identities, parameter counts, task facts)."""
    import torch

    import rnnaudit

    x = torch.rand(2, 8, 1, generator=torch.Generator().manual_seed(0))
    out = {}
    for name, model in walkthrough_models().items():
        claims = rnnaudit.audit(model, x, measure_bounds=False, diagnostics=False)["claims"]
        out[f"{name}_parameters"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
        out[f"{name}_applies"] = sum(c["applies"] for c in claims)
        out[f"{name}_not_applicable"] = sum(not c["applies"] for c in claims)
        out[f"{name}_own_cases"] = sum(not c["applies"] and OWN_CASES in (c["reason"] or "") for c in claims)
    return out


def head_commit() -> str | None:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def verdict_numbers(results: Path) -> tuple[dict[str, int], str | None]:
    """Verdict counts of a quick check of every paper: all claims, the seed papers' (``seed_*``), the classic
    papers' (``classic_*``) and the modern recurrences' (``modern_*``). Returns
    ({}, why) where ``results`` cannot give them: absent, another profile or some papers only, another commit's
    run, or claims the registry no longer has (or does not have yet)."""
    from rnnaudit.bounds import PAPERS, all_claims
    from rnnaudit.names import CLASSIC_PAPERS, MODERN_PAPERS, SEED_PAPERS

    if not results.is_file():
        return {}, f"{results} is missing (run `rnnaudit check --out {results.parent}`)"
    doc = json.loads(results.read_text())
    claims = doc.get("claims") or []
    if doc.get("profile") != "quick" or {c["paper"] for c in claims} != set(PAPERS):
        return {}, f"{results} holds a run of another profile or of some papers only"
    commit = ((doc.get("provenance") or {}).get("git_commit") or "").removesuffix("+dirty")
    head = head_commit()
    if commit and head and commit != head:
        return {}, f"{results} is a run of commit {commit[:12]}, the checkout is at {head[:12]}"
    if sorted(c["id"] for c in claims) != sorted(c.id for c in all_claims()):
        return {}, f"{results} has other claims than the registry"
    out = {}
    for prefix, papers in (("", PAPERS), ("seed_", SEED_PAPERS), ("classic_", CLASSIC_PAPERS),
                           ("modern_", MODERN_PAPERS)):
        counts = Counter(c["verdict"] for c in claims if c["paper"] in papers)
        out |= {prefix + v: counts[v] for v in ("holds", "false", "misprinted", "vacuous")}
    return out, None


def as_text(key: str, numbers: dict[str, int]) -> str | None:
    """How ``key`` is printed: an English word for ``*_word`` keys, else the integer; None when not computed."""
    base = key.removesuffix("_word")
    if base not in numbers:
        return None
    value = numbers[base]
    if key.endswith("_word"):
        return NUMBER_WORDS[value] if value < len(NUMBER_WORDS) else str(value)
    return f"{value:,}"


@dataclass
class Finding:
    """One place compared: ``printed`` and ``computed`` text per key (computed None: not available)."""

    place: Place
    found: int
    printed: dict[str, str]
    computed: dict[str, str | None]

    @property
    def stale(self) -> dict[str, tuple[str, str]]:
        return {k: (self.printed[k], v) for k, v in self.computed.items()
                if v is not None and k in self.printed and self.printed[k] != v}


def compare(numbers: dict[str, int], texts: dict[str, str] | None = None) -> list[Finding]:
    """Each place's printed numbers beside the computed ones (``texts``: page → text, default read from disk)."""
    out = []
    for place in PLACES:
        text = texts[place.page] if texts is not None else (ROOT / place.page).read_text()
        matches = list(place.pattern().finditer(text))
        printed = matches[0].groupdict() if matches else {}
        out.append(Finding(place, len(matches), printed, {k: as_text(k, numbers) for k in place.keys}))
    return out


def rewrite(text: str, place: Place, numbers: dict[str, int]) -> str:
    """``text`` with the numbers of ``place`` replaced by the computed ones (those not computed are kept)."""
    def fill(match: re.Match) -> str:
        whole, start = match.group(0), match.start()
        for key in reversed(place.keys):  # from the end, so earlier spans keep their offsets
            new = as_text(key, numbers)
            if new is not None:
                a, b = match.span(key)
                whole = whole[:a - start] + new + whole[b - start:]
        return whole

    return place.pattern().sub(fill, text)


def all_numbers(results: Path) -> tuple[dict[str, int], str | None]:
    verdicts, why = verdict_numbers(results)
    return {**registry_numbers(), **applicability_numbers(), **verdicts}, why


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the places that disagree")
    parser.add_argument("--results", type=Path, default=ROOT / "audit-report" / "results.json",
                        help="a quick check's results.json, for the verdict counts (default: audit-report/)")
    args = parser.parse_args(argv)
    numbers, why = all_numbers(args.results)
    print(json.dumps(numbers, indent=1))
    if why:
        print(f"verdict counts not checked: {why}")
    findings = compare(numbers)
    bad = 0
    for f in findings:
        if f.found != 1:
            print(f"{f.place.page}: the place '{f.place.template}' is printed {f.found} times, expected once")
            bad += 1
        for key, (old, new) in f.stale.items():
            print(f"{f.place.page}: {key} is {old}, the code gives {new}")
            bad += 1
    if args.write:
        for page in sorted({p.page for p in PLACES}):
            path = ROOT / page
            text = path.read_text()
            for place in (p for p in PLACES if p.page == page):
                text = rewrite(text, place, numbers)
            if text != path.read_text():
                path.write_text(text)
                print(f"rewrote {page}")
        return 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
