"""Figures of a run for papers: a cluster's spread over time and the corpus at a glance.

Qt-free: the numbers come from plain functions over the project's SQLite connection
(:mod:`.spread`, :mod:`.corpus`), the figures are :class:`matplotlib.figure.Figure`
objects built without pyplot or any GUI backend (:mod:`.timeline`, :mod:`.dashboard`),
and :mod:`.saving` writes them as PNG/SVG and their numbers as CSV. The window's views
(workbench.gui.figures) only put these figures on a canvas.
"""
