"""One module per feature: row types, pure ``parse``/``plan`` functions, a small orch class."""
