"""benchmarks/compare_results.py across the verdict vocabularies: format_version 1's ``violated`` equals ``false`` and
``misprinted`` of version 2; a real change of verdict, and of a reading, is still a difference."""

import json

import pytest

from tests.conftest import load_benchmark


def _doc(verdict, *, version=None, readings=()):
    doc = {"claims": [{"id": "p.c", "paper": "p", "verdict": verdict, "n_cases": 3, "worst_ratio": 2.0,
                       "worst_parts": {"a": 2.0}, "readings": list(readings)}]}
    if version is not None:
        doc["format_version"] = version
    return doc


def test_violated_of_format_1_is_the_same_verdict_as_false_and_misprinted():
    cr = load_benchmark("compare_results")
    for new in ("false", "misprinted"):
        assert cr.compare(_doc("violated"), _doc(new, version=2), set()) == []
        assert cr.renamed(_doc("violated"), _doc(new, version=2)) == 1
    assert cr.format_version(_doc("holds")) == 1 and cr.format_version(_doc("holds", version=2)) == 2


def test_a_changed_verdict_or_reading_is_a_difference():
    """The negative control of the test above."""
    cr = load_benchmark("compare_results")
    assert cr.compare(_doc("violated"), _doc("holds", version=2), set()) == ["p.c: verdict 'violated' -> 'holds'"]
    assert cr.compare(_doc("false", version=2), _doc("misprinted", version=2), set()) != []
    reading = {"name": "r", "verdict": "holds", "worst_ratio": 0.5}
    changed = [cr.compare(_doc("misprinted", version=2, readings=[reading]),
                          _doc("misprinted", version=2, readings=[{**reading, "verdict": "false"}]), set())]
    assert changed == [["p.c: reading 'r' verdict 'holds' -> 'false'"]]


@pytest.mark.parametrize("text,needle", [
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"format_version": 2}', "'claims' must be a list"),
    ('{"claims": [{"paper": "sgornn"}]}', "claims[0] needs a string 'id'"),
    ('{"claims": [{"id": "a", "paper": "p", "readings": [1]}]}', "claims[0] (a): 'readings'"),
    ('{"format_version": "two", "claims": []}', "format_version must be an integer"),
    ('{"claims": [', "Expecting value"),
    (b"\xff\xfe", "codec can't decode"),
])
def test_a_damaged_results_file_is_one_line_naming_it(tmp_path, capsys, text, needle):
    """KeyError and ValueError tracebacks on damaged files (a list, no claims, a claim without its id, a
    non-integer format_version): one line naming the file and the problem, exit 2. Control: the same file
    against an undamaged one compares."""
    cr = load_benchmark("compare_results")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_doc("false")))
    bad = tmp_path / "bad.json"
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(SystemExit) as exit_:
        cr.main([str(good), str(bad)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and err.startswith(f"compare_results: {bad}: "), err
    assert needle in err, err
    assert cr.main([str(good), str(good)]) == 0
