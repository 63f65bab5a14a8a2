"""Simulated hardware that drives the real code paths: mock pins, a pseudo-terminal, images."""
