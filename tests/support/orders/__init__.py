"""A measurement added as docs/architecture.md's recipe "Add a measurement" says, by a test:
the clinician's orders and those the environment could not carry out. Three files in one
slice; registering it is one line (``tests/test_recipes.py`` adds it to the registry)."""
