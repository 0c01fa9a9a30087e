"""A database backend that answers LIMIT as MySQL does, over SQLite (docs/differential-test.md, "MySQL's LIMIT")."""
