"""Read-only access to an a2atune results database (schema: harness/db/db.c).

Every connection is opened with the URI mode=ro, so nothing here can write; every
value reaches SQL as a bound parameter (?), never through string formatting."""
import os
import re
import sqlite3
import sys
import urllib.parse

from .common import A2AError

APPLICATION_ID = 0x61326174  # "a2at", set by harness/db/db.c
DEFAULT_DB = os.path.join("results", "a2a.db")



def param_columns():
    """The results columns of the kernel parameters that have one (radix, radix2, ...), in
    their declaration order: read from that declaration (params.declared), as
    harness/db/db.c makes its schema from it."""
    from . import params
    return tuple(p["name"] for p in params.declared() if p["column"])


def result_columns():
    """The columns of `results` a reader usually wants, in this order."""
    return (("id", "run_id", "section", "family", "kernel", "P", "Q", "S", "dist", "payload",
             "datatype", "gap") + param_columns()
            + ("iterations", "median_s", "q1_s", "q3_s", "min_s", "max_s", "status"))


SCHEMA_VERSION = 5   # the newest schema these scripts read (A2A_SCHEMA_VERSION of harness/db/db.c)


def read_text(data):
    """SQLite text as a str: UTF-8 decoded; bytes that are not UTF-8 (older versions stored
    sweep text verbatim) become U+FFFD instead of an exception. The text_factory of every
    connection the scripts open for reading."""
    return data.decode("utf-8", "replace")


def connect_readonly(path, what="database", timeout=5.0):
    """A read-only connection to the SQLite file at path whose text columns never raise
    (read_text). Opened with mode=ro; when that cannot open it (a write-ahead-log database
    on a read-only mount, where the -shm file cannot be made), again with immutable=1,
    which reads the file as it is (a non-empty -wal file beside it is then not read, and a
    note on stderr says so). Raises sqlite3.Error when neither works."""
    quoted = urllib.parse.quote(os.path.abspath(path))
    try:
        conn = sqlite3.connect("file:%s?mode=ro" % quoted, uri=True, timeout=timeout)
        conn.execute("PRAGMA application_id").fetchone()
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as e:
        name = getattr(e, "sqlite_errorname", "") or ""
        if not name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
            raise
        conn = sqlite3.connect("file:%s?mode=ro&immutable=1" % quoted, uri=True, timeout=timeout)
        wal = path + "-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            sys.stderr.write("a2a: note: %s: opened as immutable (read-only location); the "
                             "%d bytes of %s are not read\n" % (path, os.path.getsize(wal), wal))
    conn.text_factory = read_text
    return conn


def check_version(conn, path):
    """A2AError when the file's user_version is newer than the scripts know."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise A2AError("%s: database schema version %d is newer than these scripts know (%d); "
                       "use the scripts of the a2atune that wrote it" % (path, version,
                                                                        SCHEMA_VERSION))
    return version


def open_db(path):
    """A read-only connection to an a2atune database, or A2AError (missing file, not
    SQLite, not written by a2atune, a newer schema than the scripts know). Works on a
    read-only mount; text that is not UTF-8 reads as U+FFFD (read_text)."""
    if not os.path.exists(path):
        raise A2AError("%s: no such database (run a sweep first, or pass --db PATH)" % path)
    if not os.path.isfile(path):
        raise A2AError("%s: not a regular file" % path)
    try:
        conn = connect_readonly(path)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.Error as e:
        raise A2AError("%s: not an a2atune database (%s)" % (path, e))
    checked_a2a_connection(conn, path, app_id, app_id == APPLICATION_ID)
    current_views(conn)
    return Database(conn, path)


def checked_a2a_connection(conn, path, app_id, is_a2a):
    """conn, with rows as sqlite3.Row, when is_a2a and its schema is one these scripts read;
    else conn is closed and A2AError names path and its application_id."""
    if not is_a2a:
        conn.close()
        raise A2AError("%s: not an a2atune database (application_id %#x, expected %#x)"
                       % (path, app_id, APPLICATION_ID))
    try:
        check_version(conn, path)
    except A2AError:
        conn.close()
        raise
    conn.row_factory = sqlite3.Row
    return conn


def current_views(conn):
    """Make this connection read the views of the results contract (result_data, best_radix,
    speedup_vs_baseline) as harness/db/views.c defines them (db_views, read from `a2atune list
    --json`), whatever the file holds: an a2atune opening a file for writing replaces views
    whose text differs, but a file written by an older a2atune and only read since keeps the
    old ones. Those are then shadowed by TEMP views of the current text, for this
    connection only (the file is not written). Returns True when the views are current;
    False when they are not and no a2atune answers (the file's own views, if any, stay:
    Database.require_views says what to do)."""
    from . import params
    try:
        views = params.registry().get("views", [])
    except A2AError:
        return False
    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'"))
    if all(stored.get(v["name"]) == "CREATE VIEW %s AS %s" % (v["name"], v["select"])
           for v in views):
        return True
    if not conn.execute("SELECT 1 FROM pragma_table_info('runs') WHERE name = 'launch_group'"
                        ).fetchone():
        # a file from before launch groups: each run alone (as harness/db/views.c db_read_current_views)
        conn.execute("CREATE TEMP VIEW runs AS SELECT *, NULL AS launch_group FROM main.runs")
    for v in views:
        conn.execute("CREATE TEMP VIEW %s AS %s" % (v["name"], v["select"]))
    return True


class Database:
    def __init__(self, conn, path):
        self.conn = conn
        self.path = path

    def execute(self, sql, params=()):
        try:
            return self.conn.execute(sql, params)
        except sqlite3.Error as e:
            raise A2AError("%s: %s" % (self.path, e))

    def all(self, sql, params=()):
        return self.execute(sql, params).fetchall()

    def require_views(self):
        """A2AError unless the result_data view (and with it the grouping of harness/db/views.c)
        can be read: current in the file or shadowed by current_views."""
        if self.execute("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'result_data'"
                        " UNION SELECT 1 FROM sqlite_temp_master WHERE type = 'view'"
                        " AND name = 'result_data'").fetchone() is None:
            raise A2AError("%s: written by an older a2atune, without the result_data view: "
                           "build a2atune (make) so the scripts can read it, or open it once "
                           "for writing with a newer a2atune" % self.path)

    def columns(self, table):
        return [r["name"] for r in self.all("SELECT name FROM pragma_table_info(?)", (table,))]

    # ---- runs ----------------------------------------------------------------------
    def runs(self):
        return self.all("SELECT * FROM runs ORDER BY id")

    def run(self, run_id):
        rows = self.all("SELECT * FROM runs WHERE id = ?", (run_id,))
        if not rows:
            ids = [str(r["id"]) for r in self.all("SELECT id FROM runs ORDER BY id")]
            raise A2AError("%s: no run %s (runs: %s)" % (self.path, run_id, ", ".join(ids) or "none"))
        return rows[0]

    def check_run(self, run_id):
        if run_id is not None:
            self.run(run_id)
        return run_id

    def newest_run(self, where="", params=()):
        """The newest run id with an ok result matching `where` (SQL over results with
        bound parameters), or None."""
        sql = "SELECT max(run_id) FROM results WHERE status = 'ok'" + (" AND " + where if where else "")
        return self.execute(sql, params).fetchone()[0]

    # ---- kernels -------------------------------------------------------------------
    def kernels(self):
        return [r[0] for r in self.all("SELECT DISTINCT kernel FROM results ORDER BY kernel")]

    def check_kernels(self, names):
        """A2AError for a kernel this database has never seen."""
        known = self.kernels()
        for k in names:
            if k not in known:
                raise A2AError("unknown kernel '%s' (kernels in %s: %s)"
                               % (k, self.path, ", ".join(known) or "none"))
        return names

    def rows_where(self, filters, extra=None, order=None, columns="*", table="results"):
        """Results matching filters: a dict column -> value or list of values (None or
        an empty list: no condition). `extra` is an optional (sql, params) condition.
        table: results, or the view result_data (results with alloc, own_choice and
        data_set). order: an ORDER BY list (default: by run, family, kernel, P, S, dist,
        payload, datatype, gap, the parameters' columns the file has, id)."""
        if table not in ("results", "result_data"):
            raise ValueError("not a results table: %s" % table)
        if order is None:   # a parameter declared after the file was written has no column
            have = self.columns(table)
            order = ", ".join(("run_id", "family", "kernel", "P", "S", "dist", "payload",
                               "datatype", "gap") + tuple(c for c in param_columns() if c in have)
                              + ("id",))
        where, params = build_where(filters)
        if extra:
            where.append(extra[0])
            params.extend(extra[1])
        sql = "SELECT %s FROM %s" % (columns, table)
        if where:
            sql += " WHERE " + " AND ".join(where)
        if order:
            sql += " ORDER BY " + order
        return self.all(sql, params)


_FILTER_COLUMNS = {"run_id", "family", "kernel", "P", "Q", "S", "dist", "payload", "datatype",
                   "gap", "status", "section"}   # and param_columns()


def build_where(filters):
    """(conditions, params) for a dict column -> value | list | None; columns are
    checked against a fixed set, values are always bound parameters."""
    where, params = [], []
    for col, value in filters.items():
        if col not in _FILTER_COLUMNS and col not in param_columns():
            raise ValueError("not a filter column: %s" % col)
        if value is None or (isinstance(value, (list, tuple)) and not value):
            continue
        if isinstance(value, (list, tuple)):
            where.append("%s IN (%s)" % (col, ", ".join("?" * len(value))))
            params.extend(value)
        else:
            where.append("%s = ?" % col)
            params.append(value)
    return where, params


def describe_filters(filters):
    """'kernel=tra, P=4' for error messages."""
    parts = []
    for col, value in filters.items():
        if value is None or (isinstance(value, (list, tuple)) and not value):
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append("%s=%s" % (col, value))
    return ", ".join(parts) or "no filter"


def short_mpi(run):
    """'Open MPI v4.1.4' from the long MPI_Get_library_version text."""
    version = (run["mpi_version"] or "").strip().splitlines()
    text = version[0] if version else ""
    text = re.sub(r"\s*Version:\s*", " ", text.split(",")[0]).strip()
    lib = run["mpi_library"] or ""
    if not text:
        return lib or "unknown MPI"
    if lib and not text.lower().startswith(lib.lower()):
        text = "%s %s" % (lib, text)
    return text[:48]
