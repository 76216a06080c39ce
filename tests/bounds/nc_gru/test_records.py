"""Every nc_gru.md claim record names its source, statement, assumptions and what breaks, and the paper's index
lists every claim."""

from rnnaudit.bounds.nc_gru import CLAIMS, COVERAGE

IDS = {"nc_gru.sec2_1", "nc_gru.sec2_1.corrected", "nc_gru.eq2", "nc_gru.sec2_2", "nc_gru.scaling_d", "nc_gru.eq4",
       "nc_gru.eq5",
       "nc_gru.eq7", "nc_gru.eq7.corrected", "nc_gru.theorem1", "nc_gru.theorem1.corrected", "nc_gru.theorem1_torch",
       "nc_gru.theorem1_torch.layers", "nc_gru.theorem1_lstm",
       "nc_gru.corollary1",
       "nc_gru.corollary1.corrected", "nc_gru.corollary2", "nc_gru.corollary2.corrected", "nc_gru.eq18",
       "nc_gru.eq18.corrected", "nc_gru.alg1_skew", "nc_gru.sec3_3_best", "nc_gru.sec3_3",
       "nc_gru.sec3_3.corrected", "nc_gru.corollary3",
       "nc_gru.corollary3.corrected", "nc_gru.param_match", "nc_gru.param_match.corrected", "nc_gru.sec4_1",
       "nc_gru.sec4_1.corrected", "nc_gru.sec4_2", "nc_gru.sec4_2.corrected", "nc_gru.sec4_3",
       "nc_gru.sec4_3.corrected",
       "nc_gru.copy_baseline", "nc_gru.sec4_4", "nc_gru.sec4_data", "nc_gru.sec4_lm", "nc_gru.sec5_3",
       "nc_gru.eq36", "nc_gru.eq37", "nc_gru.eq37.corrected", "nc_gru.eq47",
       "nc_gru.eq47.corrected"}


def test_all_nc_gru_claims_have_ids_sources_and_assumptions():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert set(ids) == IDS
    for c in CLAIMS:
        assert c.paper == "nc_gru" and c.source.startswith("nc_gru.md")
        assert c.statement and c.assumptions and c.explanation


def test_every_corrected_form_sits_beside_its_original_and_is_indexed():
    ids = {c.id for c in CLAIMS}
    for c in CLAIMS:
        if c.id.endswith(".corrected"):
            assert c.id.removesuffix(".corrected") in ids
    indexed = {cid for s in COVERAGE for cid in s.claims}
    assert indexed == ids


def test_the_index_counts_checked_and_not_checkable_entries():
    """Every entry either names claims or says why it cannot be checked; definitions say what they define."""
    for s in COVERAGE:
        assert s.claims or s.reason
        if s.reason.startswith("a definition"):
            assert s.claims == () and "(" in s.reason
    assert sum(1 for s in COVERAGE if s.status == "checked") >= 50
