"""spectral_rnn.md, Sec. 4, eq. 6–7: σ_i = 2r(f(σ̂_i) − 0.5) + σ* and the singular values of W lie
in [σ* − r, σ* + r] (Corollary 1's "singular radius in [1 − r, 1 + r]")."""

from __future__ import annotations

import copy

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, NotApplicable, Reading, Supremum
from rnnaudit.bounds.spectral_rnn.cases import A_F64, F64, MATRIX_SIZES, SpectralCellCase, draw, gauss, randint, t64
from rnnaudit.bounds.spectral_rnn.reflectors import RECON_C, U64
from rnnaudit.cells import SpectralRNN

__all__ = ["eq7", "A_R_NONNEG", "A_RANGE_NONNEG", "A_SIGMA_STAR_NONNEG"]


def _case(gen, n, sigma_star, r, saturated, device, dtype) -> SpectralCellCase:
    """A width-n Spectral-RNN with random reflector counts and σ̂ ~ N(0, 9), saturated at ±40 with probability
    ``saturated`` (the drawing order of both samplers)."""
    cell = SpectralRNN(1, n, randint(gen, 0, n), randint(gen, 0, n), r=r, sigma_star=sigma_star, bias=False,
                       generator=gen, dtype=F64)
    with torch.no_grad():
        s = 3 * gauss(gen, n)
        if draw(gen) < saturated:
            s = 40 * torch.sign(s)
        cell.sigma_hat.copy_(s)
    return SpectralCellCase(cell.to(device=device, dtype=dtype))


def _sample(gen, h, T, device, dtype) -> SpectralCellCase:
    """σ* ∈ [0.2, 2], r ∈ [0, σ*] (r = 0 and r = σ* as edge cases), σ̂ ~ N(0, 9), saturated (±40) in a
    third of the cases; m1, m2 uniform in [0, n] (m2 = 0: no V factor)."""
    n = h
    sigma_star = 0.2 + 1.8 * draw(gen)
    kind = randint(gen, 0, 3)
    r = 0.0 if kind == 0 else sigma_star if kind == 1 else sigma_star * draw(gen)
    return _case(gen, n, sigma_star, r, 1 / 3, device, dtype)


def _sample_nonneg(gen, h, T, device, dtype) -> SpectralCellCase:
    """The reading's cases: σ* ∈ [0, 1] (σ* = 0 in a quarter of the cases) and r ∈ [0, 2], so r > σ* (a range
    [σ* − r, σ* + r] that reaches below 0) in most; σ̂ saturated at ±40 in half the cases."""
    n = h
    sigma_star = 0.0 if draw(gen) < 0.25 else draw(gen)
    r = 2 * draw(gen)
    return _case(gen, n, sigma_star, r, 1 / 2, device, dtype)


def _measure(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor]]:
    cell = case.cell
    sigma = cell.sigma
    W = cell.recurrent_matrix()
    sv = torch.linalg.svdvals(W)
    lo, hi = cell.sigma_star - cell.r, cell.sigma_star + cell.r
    n = cell.hidden_size
    sv_tol = RECON_C * n * n * U64 * max(abs(hi), abs(lo))
    # computed singular values are within ‖ΔW‖₂ ≤ sv_tol of W's exact ones (Weyl), hence the slack. The lower
    # ends are written lo ≤ σ_min + slack, both sides ≥ 0: at σ* = r the end is 0 and a saturated σ̂ = −40 gives
    # σ_min = 0 in floating point, where a slack subtracted from lo would make a negative numerator over a zero
    # bound (an infinite ratio for an inequality that holds). σ itself is exact up to 4 ulps of σ* + r.
    sigma_tol = 4 * U64 * (abs(cell.sigma_star) + cell.r)
    return {
        "σ_i ≤ σ* + r (eq. 7)": (sigma.max(), t64(hi, sigma)),
        "σ* − r ≤ σ_i (eq. 7)": (t64(lo, sigma), sigma.min() + sigma_tol),
        "‖W‖₂ ≤ σ* + r": (sv.max(), t64(hi + sv_tol, sigma)),
        "σ* − r ≤ σ_min(W)": (t64(lo, sigma), sv.min() + sv_tol),
        "singular values of W = |σ| (eq. 6)": (
            (sv - sigma.abs().sort(descending=True).values).abs().max(), t64(sv_tol, sigma)),
    }


def _measure_reading(case: SpectralCellCase) -> dict[str, tuple[Tensor, Tensor]]:
    """The printed parts, with the lower ends moved across as σ* ≤ σ_min + r (+ the same slack): with r > σ* both
    σ* − r and σ_min may be negative, and a ratio of two negatives says nothing; with σ* ≥ 0 and σ_i ≥ σ* − r ≥ −r
    both sides of the moved form are ≥ 0, and it is tight (ratio 1) where σ̂ saturates at −∞."""
    parts = _measure(case)
    cell = case.cell
    (_, s_bound), (_, w_bound) = parts.pop("σ* − r ≤ σ_i (eq. 7)"), parts.pop("σ* − r ≤ σ_min(W)")
    star = t64(cell.sigma_star, cell.sigma)
    parts["σ* − r ≤ σ_i (eq. 7), as σ* ≤ σ_i + r"] = (star, s_bound + cell.r)
    parts["σ* − r ≤ σ_min(W), as σ* ≤ σ_min(W) + r"] = (star, w_bound + cell.r)
    return parts


A_R_NONNEG = Assumption("r ≥ 0", lambda c: (c.cell.r >= 0, f"r = {c.cell.r}"))
A_RANGE_NONNEG = Assumption("σ* ≥ r (the range [σ* − r, σ* + r] is non-negative, as with σ* = 1, r ≪ 1)",
                            lambda c: (c.cell.sigma_star >= c.cell.r,
                                       f"σ* = {c.cell.sigma_star:.6g}, r = {c.cell.r:.6g}"))
A_SIGMA_STAR_NONNEG = Assumption("σ* ≥ 0 (a singular radius centred at a non-negative value, as σ* = 1)",
                                 lambda c: (c.cell.sigma_star >= 0, f"σ* = {c.cell.sigma_star:.6g}"))

def _from_model(view) -> list[SpectralCellCase]:
    """A Spectral-RNN model's own cell (float64 copy): eq. 7 is about its parameters alone."""
    if not isinstance(view.cell, SpectralRNN) or view.cell.sigma is None:
        without = " without σ" if isinstance(view.cell, SpectralRNN) else ""
        raise NotApplicable(f"eq. 7 parametrises the singular values σ of a Spectral-RNN (Sec. 4); the model's cell is "
                            f"{type(view.cell).__name__}{without}")
    return [SpectralCellCase(copy.deepcopy(view.cell).double())]


# the range parts depend on σ̂ only, in closed form: random cases reach them, so nothing is left free
_CELLS = CaseSpace(case_type=SpectralCellCase, sample=_sample, sizes=MATRIX_SIZES, from_model=_from_model)

eq7 = Claim(
    id="spectral_rnn.eq7",
    source="spectral_rnn.md, Sec. 4, eq. 6–7 (and Corollary 1's 'singular radius in [1 − r, 1 + r]')",
    statement="σ_i = 2r(f(σ̂_i) − 0.5) + σ* ∈ [σ* − r, σ* + r], so W's singular values lie in [σ* − r, σ* + r]",
    assumptions=(A_R_NONNEG, A_RANGE_NONNEG, A_F64),
    measure="σ from SpectralRNN.sigma and svdvals of the dense W = U diag(σ) Vᵀ (householder_product)",
    bound="σ* + r above; σ* − r below, against σ_min + 30 n² u (σ* + r) (W) and σ_min + 4u(σ* + r) (σ); "
          "|sv − sort|σ|| ≤ 30 n² u (σ* + r)",
    evaluate=_measure,
    cases=_CELLS,
    supremum=Supremum(1.0, "σ_i = 2r(f(σ̂_i) − 0.5) + σ* tends to σ* ± r as σ̂_i → ±∞ (f the sigmoid) and W's singular "
                           "values are the |σ_i|: the sampler's saturated σ̂ = ±40 reach both ends up to rounding",
                      at=(2, 1), part="σ_i ≤ σ* + r (eq. 7)"),
    explanation="Would mean σ leaves [σ* − r, σ* + r] or W's singular values are not |σ_i|. The hypothesis σ* ≥ r "
                "is rnnaudit's and stronger than needed: σ* ≥ 0 is necessary and sufficient for the singular values "
                "|σ_i| to stay in [σ* − r, σ* + r] (the reading below, which holds), since |σ_i| ≤ max(σ* + r, r − σ*) "
                "and the lower end σ* − r ≤ |σ_i| holds for every σ*. For σ* < 0 the magnitudes exceed σ* + r "
                "(σ* = −0.2, r = 0.5: ‖W‖₂ = 0.7 = 2.33 (σ* + r)), but a negative σ* is no fair reading of the "
                "paper, which centres the singular values at σ* = 1.",
    notes="Tight: the sampler's saturated σ̂ = ±40 reach both ends (ratio 1 up to rounding), so no adversarial "
          "ascent is run (the range parts depend on σ̂ only, in closed form). σ* ≥ r is rnnaudit's assumption for "
          "the printed form (a range [σ* − r, σ* + r] of non-negative values, as with σ* = 1, r < 1); the reading "
          "drops it for σ* ≥ 0 and holds, e.g. at σ* = 0.3, r = 0.8 and σ* = 0, r = 0.5. Sec. 4 writes 'σ̂_i is "
          "updated from u_i, v_i via SGD'; σ̂ is its own parameter (Algorithm 1's ∂L/∂σ̂). Decision: that sentence "
          "is not counted as an error: the update of σ̂ by SGD goes through ∂L/∂σ̂, and u_i, v_i are the reflectors "
          "updated beside it.",
    readings=(Reading(
        "σ* ≥ 0 and r ≥ 0 (no σ* ≥ r)",
        "For σ* ≥ 0 and r ≥ 0: σ_i ∈ [σ* − r, σ* + r], so W's singular values lie in [σ* − r, σ* + r]",
        "Sec. 4 introduces σ* and r as hyperparameters, the centre and radius of the singular values, and states no "
        "condition between them (its experiments use σ* = 1, r < 1); a centre σ* < 0 would put the singular values "
        "about a negative number, which the text never considers",
        _measure_reading, cases=CaseSpace(case_type=SpectralCellCase, sample=_sample_nonneg, sizes=MATRIX_SIZES),
        assumptions=(A_R_NONNEG, A_SIGMA_STAR_NONNEG, A_F64)),),
)
