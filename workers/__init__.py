"""The Huey application: session extraction as crash-safe jobs and the periodic sweeps.

Each task is a thin wrapper over a core function; see issue 5 in the tracker for the plan.
Core never imports this package.
"""
