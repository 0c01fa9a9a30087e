"""SQLite with MySQL's LIMIT: the stand-in's rows stay in in-memory SQLite, but the page query's LIMIT is read as
django-edw's database, MySQL, reads it.

Django sends a page as `LIMIT <limit> OFFSET <offset>` (operations.limit_offset_sql). MySQL's grammar takes an
unsigned 64-bit literal there: up to 18446744073709551615 it answers the rows (a limit above the table's size is
no limit), at 2**64 and above the literal is no integer and the statement fails with error 1064 (ER_PARSE_ERROR),
which Django raises as ProgrammingError and answers with its 500 page. SQLite reads a LIMIT as a signed 64-bit
integer, so a limit from 2**63 to 2**64-1 is sent to it as -1 (SQLite's "no limit"): the same rows MySQL returns.
"""

from django.db.backends.sqlite3 import base, operations
from django.db.utils import ProgrammingError

MYSQL_LIMIT_MAX = 2**64 - 1
SQLITE_LIMIT_MAX = 2**63 - 1


class DatabaseOperations(operations.DatabaseOperations):
    def limit_offset_sql(self, low_mark, high_mark):
        limit, offset = self._get_limit_offset_params(low_mark, high_mark)
        if (limit is not None and limit > MYSQL_LIMIT_MAX) or offset > MYSQL_LIMIT_MAX:
            number = limit if limit is not None and limit > MYSQL_LIMIT_MAX else offset
            raise ProgrammingError(1064, "You have an error in your SQL syntax; check the manual that corresponds "
                                         f"to your MySQL server version for the right syntax to use near '{number}'")
        if limit is not None and limit > SQLITE_LIMIT_MAX:
            limit = -1
        return " ".join(sql for sql in (f"LIMIT {limit}" if limit else None,
                                        f"OFFSET {offset}" if offset else None) if sql)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
