"""Multi-switch labs (issue 17): topology files, their validation, the generated addressing and
routing, and (in other modules) starting every switch and joining their links.

``topology`` reads and checks a containerlab-shaped file into plain frozen rows; ``addressing`` turns a
topology into the CONFIG_DB tables each switch boots with. Both are pure: they read SKU files, never a
database.
"""
