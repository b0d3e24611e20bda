"""Not a test: a module the fork-server guard test has the fork server import, standing for a
warm-up that takes long (a cold cache on a busy machine)."""

import time

time.sleep(60)
