"""PostgreSQL for the ports that run inside it: the run's server (servers.py), each port a role of
its own there (database.py), and one cell's query streamed as lines the way a program's output is
(query.py)."""
