"""Every srnn.md claim record names its source, statement, assumptions and what breaks, in paper order."""

from rnnaudit.bounds.srnn import CLAIMS


def test_all_srnn_claims_have_their_ids_and_sources():
    ids = [c.id for c in CLAIMS]
    assert ids == ["srnn.eq2", "srnn.eq2.corrected", "srnn.shift_wlog", "srnn.eq4", "srnn.hidden_gradient",
                   "srnn.hidden_gradient.corrected", "srnn.eq7", "srnn.eq9", "srnn.eq9.corrected", "srnn.sigma_prime",
                   "srnn.eq10", "srnn.eq10.corrected", "srnn.eq11", "srnn.eq11.corrected", "srnn.no_explosion",
                   "srnn.relu_vanishing", "srnn.relu_nonnegative", "srnn.table1", "srnn.gamblers_ruin",
                   "srnn.gamblers_ruin.corrected", "srnn.gamblers_ruin_horizon", "srnn.gamblers_ruin_horizon.corrected",
                   "srnn.table1_count", "srnn.table1_count.corrected", "srnn.memcopy_baseline", "srnn.adding_baseline",
                   "srnn.sequence_lengths", "srnn.param_counts", "srnn.table2", "srnn.table3"]
    for c in CLAIMS:
        assert c.paper == "srnn" and c.source.startswith("srnn.md")
        assert c.statement and c.assumptions and c.explanation


def test_every_violated_claim_but_the_corrected_has_a_corrected_form_or_says_why():
    """A claim whose statement is wrong points to its correction in its explanation."""
    ids = {c.id for c in CLAIMS}
    for c in CLAIMS:
        if f"{c.id}.corrected" in ids:
            assert f"{c.id}.corrected" in c.explanation or "corrected" in c.explanation.lower(), c.id
