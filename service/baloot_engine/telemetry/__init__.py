"""Telemetry: structured logs and Prometheus metrics, for every layer above the rules.

It sits below the API and the server: the servicer binds facts to the call's log line and
counts what the matches do, the server configures the log output, serves the metrics endpoint
and runs the interceptor that writes one line per call. Nothing here imports
:mod:`baloot_engine.api` or :mod:`baloot_engine.server`, and the rules core never imports this
package (nor prometheus or structlog).
"""
