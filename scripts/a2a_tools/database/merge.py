"""`a2a merge SHARDS... --into DB`: database shards (one per cluster job) into one database.

Idempotent: a run is identified across files by its provenance (started, host, command
line, sweep text), a result by (its run, config_key), a row of a child table by its
primary key with the run/result ids remapped (or by the whole row when it has none).
What the target already holds is not added again, so merging twice adds nothing; a
shard merged again after its job went on (resumed, finished) adds only what is new, and
the run takes the shard's end time and status when those are later. A duplicate whose
other columns differ is a conflict: it is reported, the target keeps its row (and the
children of a conflicting result are not merged), and the exit status is 1.

Child tables are found in the schema, not listed here: every table with a foreign key
to results(id) or runs(id) (or, without declared keys, a result_id / run_id column), so
tables added later are merged too. Tables, columns, indexes and views the target lacks
are created from the shard's schema. Each shard is merged in one transaction.

Text that is not UTF-8 (older a2atune versions stored sweep text verbatim) is copied
byte for byte and compared byte for byte (RawText), so such a shard merges like any
other, and merging it again adds nothing. A shard or target whose schema is newer than
these scripts know is refused."""
import os
import sqlite3

from ..core import netmodel
from ..core.common import A2AError
from ..core.db import APPLICATION_ID, check_version, checked_a2a_connection, connect_readonly

RUN_IDENTITY = ("started", "host", "command_line", "sweep_text")
RUN_PROGRESS = ("ended", "status", "pid", "heartbeat", "planned")  # change while a run goes on: the later state wins
EXIT_CONFLICT = 1
MAX_CONFLICT_LINES = 20


def add_parser(sub, common):
    """Registers `a2a merge` and its options."""
    p = sub.add_parser(
        "merge", help="merge database shards into one database (idempotent; reports conflicts)",
        description="Copies the runs, results and every table hanging off them (samples, "
                    "counters, metrics, ...) from each SHARD into DB with new ids, keeping each "
                    "run's provenance. Merging the same shard twice adds nothing; a duplicate "
                    "with different numbers is reported as a conflict (the row in DB is kept). "
                    "DB is created when missing.",
        epilog="examples:\n"
               "  a2a merge results/slurm/quick-*/shards/*.db --into results/a2a.db\n"
               "  a2a merge a.db b.db --into all.db --dry-run\n"
               "exit status: 0 merged, 1 conflicts were found (everything else was merged),\n"
               "2 bad input (a shard is missing or not an a2atune database, DB is a shard ...)",
        formatter_class=common["formatter"])
    p.add_argument("shards", nargs="+", metavar="SHARD", help="a2atune databases to merge")
    p.add_argument("--into", required=True, metavar="DB", help="the database merged into")
    p.add_argument("--dry-run", action="store_true",
                   help="report what would be added; change nothing")
    p.set_defaults(func=run, needs_db=False)
    return p


class RawText(bytes):
    """A TEXT value whose bytes are not UTF-8, as read from a file: written and compared as
    TEXT with exactly these bytes (CAST(? AS TEXT)), never decoded."""


def raw_text(data):
    """text_factory of merge connections: a str for UTF-8 text, else RawText."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return RawText(data)


def _param(value):
    """The SQL placeholder of one bound value: TEXT with its own bytes for RawText."""
    return "CAST(? AS TEXT)" if isinstance(value, RawText) else "?"


def q(name):
    """An SQL identifier, quoted."""
    return '"%s"' % name.replace('"', '""')


def _schema_objects(conn):
    """(type, name, table, sql) of every table, index, view and trigger made by a user."""
    return conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL"
                        " AND name NOT LIKE 'sqlite_%'").fetchall()


def _tables(conn):
    """The names of the tables, in schema order."""
    return [r[1] for r in _schema_objects(conn) if r[0] == "table"]


def _columns(conn, table):
    """[(name, declared type, pk position)] of a table."""
    return [(r[1], r[2], r[5]) for r in conn.execute("PRAGMA table_info(%s)" % q(table))]


def _links(conn, table):
    """{column: 'runs' | 'results'}: the columns of table that point at a run or a result."""
    links = {}
    for r in conn.execute("PRAGMA foreign_key_list(%s)" % q(table)):
        if r[2] in ("runs", "results") and (r[4] in (None, "id")):
            links[r[3]] = r[2]
    if not links:
        names = [c[0] for c in _columns(conn, table)]
        for col, parent in (("result_id", "results"), ("run_id", "runs")):
            if col in names:
                links[col] = parent
    return links


def open_shard(path):
    """A read-only connection to an a2atune database (A2AError if it is none)."""
    if not os.path.isfile(path):
        raise A2AError("%s: no such shard" % path)
    try:
        conn = connect_readonly(path, timeout=30)
        conn.text_factory = raw_text
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    except sqlite3.Error as e:
        raise A2AError("%s: not an a2atune database (%s)" % (path, e))
    return checked_a2a_connection(conn, path, app_id, app_id == APPLICATION_ID and
                                  {"runs", "results"} <= set(_tables(conn)))


def open_target(path, dry_run):
    """A writable connection to DB (an in-memory one for a dry run of a new DB).

    A2AError when DB exists and is neither empty nor an a2atune database."""
    exists = os.path.exists(path)
    if exists and not os.path.isfile(path):
        raise A2AError("%s: not a regular file" % path)
    if not exists and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise A2AError("%s: the directory does not exist" % path)
    try:
        conn = sqlite3.connect(":memory:" if dry_run and not exists else path, timeout=30,
                               isolation_level=None)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as e:
        raise A2AError("%s: cannot open it as a database (%s)" % (path, e))
    if app_id != APPLICATION_ID and (app_id != 0 or objects != 0):
        conn.close()
        raise A2AError("%s: not an a2atune database (it holds other tables); choose another --into"
                       % path)
    try:
        check_version(conn, path)
    except A2AError:
        conn.close()
        raise
    conn.text_factory = raw_text
    if not dry_run and objects == 0:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.row_factory = sqlite3.Row
    return conn


def sync_schema(target, shard):
    """Gives target every table, column, index and view of shard it lacks (a new target
    gets the shard's whole schema, application_id and user_version). Returns the names
    of what was added."""
    added = []
    have = {r[1] for r in _schema_objects(target)}
    objects = _schema_objects(shard)
    order = {"table": 0, "index": 1, "view": 2, "trigger": 3}
    for kind, name, table, sql in sorted(objects, key=lambda o: order.get(o[0], 9)):
        if name not in have:
            target.execute(sql)
            added.append("%s %s" % (kind, name))
        elif kind == "table":
            mine = {c[0] for c in _columns(target, name)}
            for col, ctype, _ in _columns(shard, name):
                if col not in mine:
                    target.execute("ALTER TABLE %s ADD COLUMN %s %s" % (q(name), q(col), ctype))
                    added.append("column %s.%s" % (name, col))
    if target.execute("PRAGMA application_id").fetchone()[0] == 0:
        target.execute("PRAGMA application_id = %d" % APPLICATION_ID)
    version = shard.execute("PRAGMA user_version").fetchone()[0]
    if version > target.execute("PRAGMA user_version").fetchone()[0]:
        target.execute("PRAGMA user_version = %d" % int(version))
    return added


def _where(cols, values):
    """'a IS ? AND b IS ?' for cols and their values (IS: NULL matches NULL; RawText
    compared as the TEXT it was)."""
    return " AND ".join("%s IS %s" % (q(c), _param(v)) for c, v in zip(cols, values))


def _insert(target, table, cols, values):
    """Inserts one row; its new rowid."""
    cur = target.execute("INSERT INTO %s (%s) VALUES (%s)" % (
        q(table), ", ".join(q(c) for c in cols), ", ".join(_param(v) for v in values)), values)
    return cur.lastrowid


def _fmt(value):
    """A value for a conflict line, at most 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class ShardMerge:
    """The merge of one shard into the target, inside the caller's transaction.

    After run(): counts {'runs': [new, same, updated], 'results': [new, same],
    table: [new, same] ...} and conflicts (one line each)."""

    def __init__(self, target, shard, label):
        self.t, self.s, self.label = target, shard, label
        self.run_map, self.result_map = {}, {}     # shard id -> (target id, 'new'|'same'|'conflict')
        self.counts = {"runs": [0, 0, 0], "results": [0, 0]}
        self.conflicts = []
        self.unlinked = []

    def common_columns(self, table):
        """The shard's columns of table that the target has too, in the shard's order."""
        mine = {c[0] for c in _columns(self.t, table)}
        return [c[0] for c in _columns(self.s, table) if c[0] in mine]

    def conflict(self, what, diffs):
        """Records one conflict line naming up to three differing columns."""
        self.conflicts.append("%s: %s: %s" % (self.label, what, "; ".join(
            "%s %s here, %s in the shard" % (c, _fmt(a), _fmt(b)) for c, a, b in diffs[:3])
            + ("; ..." if len(diffs) > 3 else "")))

    def runs(self):
        """Maps every run of the shard to the target's (matched by provenance, or inserted)."""
        cols = [c for c in self.common_columns("runs") if c != "id"]
        ident = [c for c in RUN_IDENTITY if c in cols]
        if not ident:
            raise A2AError("%s: its runs table has none of %s" % (self.label, ", ".join(RUN_IDENTITY)))
        for row in self.s.execute("SELECT * FROM runs ORDER BY id"):
            match = self.t.execute("SELECT * FROM runs WHERE %s ORDER BY id LIMIT 1"
                                   % _where(ident, [row[c] for c in ident]),
                                   [row[c] for c in ident]).fetchone()
            if match is None:
                new = _insert(self.t, "runs", cols, [row[c] for c in cols])
                self.run_map[row["id"]] = (new, "new")
                self.counts["runs"][0] += 1
                continue
            self.run_map[row["id"]] = (match["id"], "same")
            diffs = [(c, match[c], row[c]) for c in cols
                     if c not in RUN_PROGRESS and match[c] != row[c]]
            if diffs:
                self.conflict("run %s %s" % (row["started"] if "started" in cols else "",
                                             row["host"] if "host" in cols else ""), diffs)
            progress = [c for c in RUN_PROGRESS if c in cols]
            if any(match[c] != row[c] for c in progress) and self._later(match, row):
                assignments = ", ".join("%s = %s" % (q(c), _param(row[c])) for c in progress)
                self.t.execute("UPDATE runs SET %s WHERE id = ?" % assignments,
                               [row[c] for c in progress] + [match["id"]])
                self.counts["runs"][2] += 1
            else:
                self.counts["runs"][1] += 1

    @staticmethod
    def _later(have, new):
        """True when the shard's state of a run is later than the target's: the target's
        is still running and the shard's is not, or both have ended and the shard's later."""
        keys = have.keys()
        status = "status" in keys
        if status and have["status"] == "running" and new["status"] != "running":
            return True
        if (status and new["status"] == "running") or "ended" not in keys or new["ended"] is None:
            return False
        return have["ended"] is None or new["ended"] > have["ended"]

    def results(self):
        """Maps every result to the target's (matched by run and config_key, or inserted)."""
        cols = [c for c in self.common_columns("results") if c != "id"]
        compare = [c for c in cols if c != "run_id"]
        for row in self.s.execute("SELECT * FROM results ORDER BY id"):
            parent = self.run_map.get(row["run_id"])
            if parent is None:
                self.conflicts.append("%s: result %s belongs to no run; not merged"
                                      % (self.label, row["config_key"]))
                continue
            values = [parent[0] if c == "run_id" else row[c] for c in cols]
            match = None
            if parent[1] != "new":
                match = self.t.execute("SELECT * FROM results WHERE run_id = ? AND config_key = %s"
                                       % _param(row["config_key"]),
                                       (parent[0], row["config_key"])).fetchone()
            if match is None:
                self.result_map[row["id"]] = (_insert(self.t, "results", cols, values), "new")
                self.counts["results"][0] += 1
                continue
            diffs = [(c, match[c], row[c]) for c in compare if match[c] != row[c]]
            if diffs:
                self.conflict("result %s of run %s" % (row["config_key"], parent[0]), diffs)
                self.result_map[row["id"]] = (match["id"], "conflict")
            else:
                self.result_map[row["id"]] = (match["id"], "same")
                self.counts["results"][1] += 1

    def children(self):
        """Merges every table linked to runs or results; notes the tables with no link."""
        for table in _tables(self.s):
            if table in ("runs", "results"):
                continue
            links = _links(self.t, table) or _links(self.s, table)
            if not links:
                self.unlinked.append(table)
                continue
            self.child_table(table, links)

    def child_table(self, table, links):
        """Copies the rows of one linked table with remapped ids: rows under new parents are
        inserted as they are, others only when their key is not there yet (a different row
        under the same key is a conflict); rows under a conflicting result are left out."""
        cols = self.common_columns(table)
        pk = [c[0] for c in sorted(_columns(self.t, table), key=lambda c: c[2]) if c[2] > 0]
        key = pk if pk and all(c in cols for c in pk) else cols
        counts = self.counts.setdefault(table, [0, 0])
        maps = {"runs": self.run_map, "results": self.result_map}
        for row in self.s.execute("SELECT * FROM %s" % q(table)):
            values, fresh, skip = {}, True, False
            for c in cols:
                if c in links:
                    parent = maps[links[c]].get(row[c])
                    if parent is None or parent[1] == "conflict":
                        skip = True
                        break
                    values[c] = parent[0]
                    fresh = fresh and parent[1] == "new"
                else:
                    values[c] = row[c]
            if skip:
                continue
            if not fresh:
                match = self.t.execute("SELECT * FROM %s WHERE %s LIMIT 1" % (
                    q(table), _where(key, [values[c] for c in key])),
                                       [values[c] for c in key]).fetchone()
                if match is not None:
                    diffs = [(c, match[c], values[c]) for c in cols if match[c] != values[c]]
                    if diffs:
                        self.conflict("%s row %s" % (table, ", ".join(
                            "%s=%s" % (c, _fmt(values[c])) for c in key)), diffs)
                    else:
                        counts[1] += 1
                    continue
            _insert(self.t, table, cols, [values[c] for c in cols])
            counts[0] += 1

    def run(self):
        """Runs, then results, then the tables hanging off them."""
        self.runs()
        self.results()
        self.children()


def network_models(conn):
    """{identity: one line naming it} of the network models of the simulated (and
    modelled) runs of a database; measured runs have none."""
    models = {}
    if "runs" not in _tables(conn):
        return models
    for row in conn.execute("SELECT * FROM runs"):
        model = netmodel.recorded(row)
        if model is not None:
            models.setdefault(netmodel.identity(model), netmodel.describe(model))
    return models


def check_one_network_model(target, shards):
    """A2AError (one line) when the target (a connection, or None when it does not exist
    yet) and the shards together hold runs of more than one network model: their timings
    are not comparable, and one database is drawn as one."""
    seen = {}
    for label, conn in ([(None, target)] if target is not None else []) + shards:
        for ident, text in network_models(conn).items():
            seen.setdefault(ident, (label, text))
    if len(seen) > 1:
        (a_where, a_text), (b_where, b_text) = list(seen.values())[:2]
        raise A2AError("refusing to merge runs of %d different network models into one database: "
                       "%s has '%s', %s has '%s'; merge each model into a database of its own"
                       % (len(seen), a_where or "the target", a_text, b_where or "the target",
                          b_text))


def merge(target_path, shard_paths, dry_run=False, out=print):
    """Merges every shard into target_path; returns the number of conflicts.

    Guarantees: each shard in one transaction (a failure leaves the target as it was
    before that shard); a dry run changes nothing; the report goes to `out`."""
    target_abs = os.path.abspath(target_path)
    for path in shard_paths:
        if os.path.exists(path) and os.path.exists(target_path) and os.path.samefile(path, target_path) \
                or os.path.abspath(path) == target_abs:
            raise A2AError("%s: a shard cannot be merged into itself (--into %s)" % (path, target_path))
    shards = [(path, open_shard(path)) for path in shard_paths]     # all checked before writing
    existing = None
    try:
        if os.path.isfile(target_path):
            existing = connect_readonly(target_path, timeout=30)
            existing.row_factory = sqlite3.Row
        check_one_network_model(existing, shards)
    except sqlite3.Error:
        pass        # not a database: open_target says so below
    except A2AError:
        for _, shard in shards:
            shard.close()
        raise
    finally:
        if existing is not None:
            existing.close()
    target = open_target(target_path, dry_run)
    total = {"runs": [0, 0, 0], "results": [0, 0]}
    conflicts = []
    try:
        if dry_run:             # one transaction over every shard, rolled back at the end
            target.execute("BEGIN IMMEDIATE")
        for path, shard in shards:
            if not dry_run:
                target.execute("BEGIN IMMEDIATE")
            try:
                was_empty = not _tables(target)
                added = sync_schema(target, shard)
                m = ShardMerge(target, shard, path)
                m.run()
            except BaseException:
                if not dry_run:
                    target.execute("ROLLBACK")
                raise
            if not dry_run:
                target.execute("COMMIT")
            children = ", ".join("%s +%d (%d already there)" % (t, c[0], c[1])
                                 for t, c in m.counts.items() if t not in ("runs", "results"))
            out("%s: runs +%d (%d already there%s), results +%d (%d already there)%s%s%s" % (
                path, m.counts["runs"][0], m.counts["runs"][1],
                ", %d updated" % m.counts["runs"][2] if m.counts["runs"][2] else "",
                m.counts["results"][0], m.counts["results"][1],
                ", " + children if children else "",
                ", %d conflict(s)" % len(m.conflicts) if m.conflicts else "",
                "; created the schema of %s" % target_path if was_empty
                else "; added to %s: %s" % (target_path, ", ".join(added)) if added else ""))
            if m.unlinked:
                out("%s: not merged (no link to runs or results): %s" % (path, ", ".join(m.unlinked)))
            for key in total:
                for i, n in enumerate(m.counts[key]):
                    total[key][i] += n
            conflicts.extend(m.conflicts)
    except sqlite3.Error as e:
        raise A2AError("%s: %s" % (target_path, e))
    finally:
        if target.in_transaction:
            target.execute("ROLLBACK")
        target.close()
        for _, shard in shards:
            shard.close()
    for line in conflicts[:MAX_CONFLICT_LINES]:
        out("CONFLICT " + line)
    if len(conflicts) > MAX_CONFLICT_LINES:
        out("CONFLICT ... and %d more" % (len(conflicts) - MAX_CONFLICT_LINES))
    out("%s %d shard(s) into %s: runs +%d, results +%d; %d conflict(s)%s" % (
        "would merge" if dry_run else "merged", len(shards), target_path, total["runs"][0],
        total["results"][0], len(conflicts), " (dry run: nothing written)" if dry_run else ""))
    return len(conflicts)


def run(args, db=None):
    """`a2a merge`: exit 0 when merged without conflicts, 1 with conflicts (the rest merged)."""
    return EXIT_CONFLICT if merge(args.into, args.shards, args.dry_run) else 0
