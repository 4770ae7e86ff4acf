"""The server process: settings, start-up and shutdown, logging, metrics and interceptors.

Nothing here knows the rules of Baloot; the servicer in :mod:`baloot_engine.api` answers the
RPCs and the rules core in :mod:`baloot_engine.rules` decides them.
"""
