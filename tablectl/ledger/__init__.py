"""The card room's books: every table's published rounds kept in one PostgreSQL database.

`seqs` tracks which of a table's message numbers arrived (its gaps), `messages` reads what the
tables publish, `schema` creates and migrates the database, `store` writes to it. Pure modules
apart from `store`; the daemon and the table never import this package."""
