"""Hardware adapters (spinner, tower link, camera) behind small interfaces, and their simulations.

Nothing here imports a Pi-only module at import time; each adapter imports what it needs when
it is opened.
"""
