"""Related rewrites on the cluster view: clusters whose pages resemble this one's below τ,
offered (never merged silently), opened against the reference, merged (M, Shift+M) or
dismissed (D). The ranking is workbench.core.related; presenter.py holds the view's logic."""
