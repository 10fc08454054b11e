"""Process plumbing of long work: checkpoints that stop it with its run, the cyclic collector held
off bulk structures, content-addressed files in the cache folder."""
