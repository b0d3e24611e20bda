def test_open_demo(demo_window):
    w = demo_window
    sizes = sorted(r.size for r in w.model.rows)
    assert sizes == [1, 2, 3, 3, 3]
