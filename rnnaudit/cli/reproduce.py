"""``rnnaudit reproduce``: re-measure a saved counterexample (exit 0 while the claim's printed statement still fails on
it), and its other readings where they share the claim's cases."""

from __future__ import annotations

import math

__all__ = ["run"]


def run(args) -> int:
    from rnnaudit.bounds import claim_by_id, load_counterexample, measure_case
    from rnnaudit.progress import progress_bar
    from rnnaudit.untrusted import InputError

    claim_id, case, recorded = load_counterexample(args.path, allow_large=args.allow_large)
    if math.isnan(recorded):  # check records a ratio above 1 (inf where the bound is 0): never NaN
        raise InputError(f"{args.path}: the recorded ratio is NaN, not a number; a counterexample rnnaudit check "
                         "wrote records the measured/bound ratio above 1 that broke the claim")
    claim = claim_by_id(claim_id)
    h, T = case.size()
    print(f"{claim_id}: h = {h}, T = {T}; measuring (the work of one case of the check at this size)")
    # one case, no intermediate points: the bar shows that work goes on and for how long
    try:
        with progress_bar(1, f"reproduce {claim_id}", unit="case") as bar:
            ratio, parts = measure_case(claim, case)
            bar.update(1)
    except (RuntimeError, ValueError, IndexError, TypeError) as err:  # a saved case always measures: tampered
        raise InputError(f"{args.path}: the saved case cannot be measured: {' '.join(str(err).split())[:300]}") \
            from None
    if math.isnan(ratio):
        raise InputError(f"{args.path}: the saved case measures a ratio of NaN (not a number), so it neither "
                         "reproduces nor refutes the claim")
    print(f"{claim_id}: measured/bound = {ratio:.10g} (recorded {recorded:.10g})")
    for name, value in parts.items():
        print(f"  {name}: {value:.10g}")
    for reading in claim.readings:
        if reading.cases is not None:  # a reading on another family of cases cannot be measured on this one
            continue
        worst, _ = measure_case(claim, case, reading)
        held = "holds" if worst <= 1 + claim.tolerance else "fails"
        print(f"  reading {reading.name}: measured/bound = {worst:.10g} ({held} on this case)")
    still = ratio > 1 + claim.tolerance
    if not still and ratio >= 1 - claim.tolerance and claim.exact is not None:
        # a strict inequality attained with equality: floating point measures 1, the exact verdict decides
        exact = claim.exact()
        if exact.verdict == "violated":
            print(f"attained with equality on this case (ratio 1 within {claim.tolerance:g}); the exact verdict "
                  f"refutes the printed statement: {exact.detail}")
            return 0
    print("the printed statement still fails on this case" if still
          else "NO LONGER FAILS: the printed statement holds on this case")
    return 0 if still else 1
