"""The analysis process: large documents are diagnosed, and questions about their models are
answered, in a worker process of their own. `spawn` starts it, `client` is the server's side,
`main` the worker's, `wire` what the two say to each other."""
