"""The simulator's core: the budgets and options (config), each request's scheduling state (request), the waiting
queue and the paged KV cache, the one scheduler and its policies, the Schedule it records and the executor that
runs it under a cost model (engine)."""
