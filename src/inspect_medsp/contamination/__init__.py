"""The contamination probe: has the model under test seen the benchmark's cases?"""
