"""The window's figure views: a cluster's timeline and the run's dashboard (their numbers
and figures are built Qt-free in workbench.figures; these only show and save them)."""
