"""The server process: settings, start-up and shutdown, workers, health and interceptors.

Nothing here knows the rules of Baloot; the servicer in :mod:`baloot_engine.api` answers the
RPCs and the rules core in :mod:`baloot_engine.rules` decides them. The log format and the
metric families live in :mod:`baloot_engine.telemetry`; this package configures the one and
serves the other.
"""
