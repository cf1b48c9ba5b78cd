"""What a run will do before it runs: each scenario's model calls and prompt sizes (the token
model ``medsp-estimate`` prices) and the split of a selection into balanced parts
(``-T shard=K/N``)."""
