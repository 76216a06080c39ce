"""Figures and the report: heatmaps, spectra with pseudospectra, tightness and trajectory plots,
report.md/report.html (uses bounds, analysis, cells)."""

from rnnaudit.figures.heatmap import plot_jacobian_heatmap
from rnnaudit.figures.spectrum import plot_eigenvalues, plot_spectrum
from rnnaudit.figures.style import apply_style
from rnnaudit.figures.tightness import plot_tightness

__all__ = ["plot_jacobian_heatmap", "plot_eigenvalues", "plot_spectrum", "plot_tightness", "apply_style"]
