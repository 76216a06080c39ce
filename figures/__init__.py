"""Figures and the report: heatmaps, spectra with pseudospectra, fixed points, tightness and trajectory plots,
report.md/report.html (uses bounds, analysis, cells).

Importing this package selects no matplotlib backend and changes no rcParams; each plot function
applies the shared style through a context (:func:`style_context`).
"""

from rnnaudit.figures.fixed_points import plot_fixed_points
from rnnaudit.figures.heatmap import plot_jacobian_heatmap
from rnnaudit.figures.saving import save_figure
from rnnaudit.figures.spectrum import plot_eigenvalues, plot_spectrum
from rnnaudit.figures.style import style_context
from rnnaudit.figures.tightness import plot_tightness

__all__ = ["plot_fixed_points", "plot_jacobian_heatmap", "plot_eigenvalues", "plot_spectrum", "plot_tightness", "save_figure",
           "style_context"]
