"""The simulated ASIC's fast path: batch forwarding over compiled tables (``forward``), the
single-packet explanation built on it (``trace``) and the traffic model (``model``)."""
