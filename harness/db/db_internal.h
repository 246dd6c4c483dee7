/* db_internal.h — what the files of the results database share and its callers never
 * see: the handle, the parameters' columns of the schema, and a few statement helpers.
 *
 * Included by the .c files of harness/db only: db.c (schema, migration, opening), views.c
 * (the views of the results contract), runs.c (run rows and liveness), store.c (storing
 * results), lookup.c (what resuming and replaying read), app_choice.c (the app command's
 * --kernel best). */
#ifndef A2A_DB_INTERNAL_H
#define A2A_DB_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include "db.h"

struct db {
    sqlite3 *handle;
};

/* The results table's columns of the parameters declared with A2A_PARAM_COLUMN
 * (a2a_registry.h), expanded from A2A_PARAMS in declaration order into the schema (db.c),
 * the views (views.c) and the INSERTs (store.c) (A2A_PARAMS(COLUMN_DEF_): " radix INTEGER,
 * radix2 INTEGER, ...,"; COLUMN_, COLUMN_N_, COLUMN_M_: " radix, radix2, ...," bare, or of
 * the views' n. and m.; COLUMN_VALUE_: a bind marker "?," each), so that a parameter with
 * a column is declared there alone. A declaration's column field is A2A_PARAM_COLUMN or 0:
 * WHEN_COLUMN_ keeps the text for the one and drops it for the other. */
#define WHEN_COLUMN_A2A_PARAM_COLUMN(text) text
#define WHEN_COLUMN_0(text)
#define COLUMN_DEF_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" " name " INTEGER,")
#define COLUMN_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" " name ",")
#define COLUMN_N_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" n." name ",")
#define COLUMN_M_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" m." name ",")
#define COLUMN_VALUE_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column("?,")

/* Runs the statements of sql. 0, or -1 with SQLite's reason in err (err may be NULL). */
int db_exec(db *d, const char *sql, char *err, size_t errlen);

/* The statement sql prepared on d's handle, or NULL with SQLite's reason in err (err may
 * be NULL). */
sqlite3_stmt *db_prepare(db *d, const char *sql, char *err, size_t errlen);

/* Binds text s (copied) to parameter i of st, or NULL when s is NULL. */
void db_bind_text_or_null(sqlite3_stmt *st, int i, const char *s);

/* The status whose stored name is text (db_status_name); STATUS_ERROR for anything else. */
result_status db_status_from_text(const unsigned char *text);

/* On return 0 the file of d holds the views of the results contract with their current
 * text (each dropped and created again, all in one write transaction, when any differed;
 * a file already current is not written); -1 with the reason in msg otherwise. */
int db_sync_views(db *d, char *msg, size_t msglen);

/* On return 0 connection h (of a file opened as it is) reads the views of the results
 * contract as this a2atune defines them, as TEMP views that shadow the file's own; a file
 * from before launch groups has its runs read with launch_group NULL (each run alone), as
 * scripts/a2a_tools/core/db.py current_views does. 0, or -1 with the reason in h's error. */
int db_read_current_views(sqlite3 *h);

#endif
