"""Load tests of the engine: complete matches through the gateway or straight to the service.

``python -m loadtest`` runs the load generator (:mod:`loadtest.driver`) against a running
service; :mod:`loadtest.stack` starts a service and a gateway on free localhost ports for the
smoke test, the fault tests and the scaling measurements (:mod:`loadtest.scaling`).
"""
