/*
 * vendor_force.c — the MPI library's own all-to-all algorithms, forced through the MPI
 * tool information interface (MPI_T control variables). See a2a_tuned.h.
 *
 * Open MPI (coll/tuned): a communicator reads coll_tuned_alltoall(v)_algorithm when it is
 * created, and obeys it only if coll_tuned_use_dynamic_rules was on at MPI_Init. So the
 * variable is written, the communicator duplicated, the variable restored; the duplicate
 * is cached on the caller's communicator (an attribute), one per algorithm.
 * MPICH: MPIR_CVAR_ALLTOALL(V)_INTRA_ALGORITHM is read at every call, so it is written
 * before the call and restored after it. Its values are an enum that MPI_T does not
 * describe (no enum type); their order is the order of the names in the variable's
 * description ("auto - ... brucks - ... nb - ..."), which is read here to find the value
 * of each name, so a different MPICH version cannot silently force the wrong algorithm.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vendor_force.h"

static const char *const alltoall_names[] = { A2A_VENDOR_ALLTOALL_NAMES };
static const char *const alltoallv_names[] = { A2A_VENDOR_ALLTOALLV_NAMES };
static const int max_algorithm[2] = { A2A_VENDOR_ALLTOALL_MAX, A2A_VENDOR_ALLTOALLV_MAX };
_Static_assert(A2A_VENDOR_ALLTOALL_MAX < 8 && A2A_VENDOR_ALLTOALLV_MAX < 8,
               "the per-algorithm tables below hold algorithms 1..7");

/* Guarantees: see a2a_tuned.h. */
const char *A2A_Vendor_algorithm_name(int alltoallv, int algorithm)
{
    alltoallv = alltoallv != 0;
    if (algorithm == 0)
        return "default";
    if (algorithm < 1 || algorithm > max_algorithm[alltoallv])
        return NULL;
    /* one table at a time: a conditional of the two arrays has the smaller one's size to
     * UBSan's object-size check, which then flags a valid index into the larger */
    if (alltoallv)
        return alltoallv_names[algorithm - 1];
    return alltoall_names[algorithm - 1];
}

/* Guarantees: see a2a_tuned.h. */
int A2A_Vendor_algorithm_valid(int alltoallv, int algorithm, int P)
{
    const char *name = A2A_Vendor_algorithm_name(alltoallv, algorithm);
    if (!name)
        return 0;
#ifdef OPEN_MPI
    if (strcmp(name, "two_proc") == 0) /* exchanges with rank ^ 1 only */
        return P == 2;
#endif
    (void)P;
    return 1;
}

/* Prints "a2a: <message>" on stderr from rank 0 of comm, once per process. */
static void complain(MPI_Comm comm, const char *fmt, ...)
{
    static int said;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (said || rank != 0)
        return;
    said = 1;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "a2a: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

#if defined(OPEN_MPI) || defined(MPICH)
/* MPI_T is initialised once and kept for the life of the process. */
static int mpit_ready(void)
{
    static int ready;
    int provided;
    if (!ready && MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS)
        ready = 1;
    return ready;
}

/* Handle of the control variable `name` (index in *index); 0 on success. */
static int cvar_open(const char *name, MPI_T_cvar_handle *handle, int *index)
{
    int count;
    if (!mpit_ready() || MPI_T_cvar_get_index(name, index) != MPI_SUCCESS)
        return -1;
    return MPI_T_cvar_handle_alloc(*index, NULL, handle, &count) == MPI_SUCCESS ? 0 : -1;
}

/* Reads an integer (or boolean) control variable; 0 on success. */
static int cvar_read(MPI_T_cvar_handle handle, int *value)
{
    int v = 0; /* a boolean fills only its first byte */
    if (MPI_T_cvar_read(handle, &v) != MPI_SUCCESS)
        return -1;
    *value = v;
    return 0;
}
#endif

#ifdef OPEN_MPI
extern char **environ; /* declared by unistd.h only with _GNU_SOURCE */
#endif

/* Guarantees: see a2a_tuned.h. Open MPI: coll/tuned's dynamic rules, which it reads only at
 * MPI_Init and MPI_T may not write, are turned on in the environment unless the user
 * configured coll/tuned there; other libraries: nothing changes. */
void A2A_Vendor_prepare(void)
{
#ifdef OPEN_MPI
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "OMPI_MCA_coll_tuned_", strlen("OMPI_MCA_coll_tuned_")) == 0)
            return;
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
#endif
}

#ifdef OPEN_MPI

/* The duplicates of one communicator, by collective and algorithm. */
typedef struct forced_comms {
    MPI_Comm comm[2][8];
} forced_comms;

/* Frees the duplicates when their communicator is freed. */
static int free_forced(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    forced_comms *fc = value;
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 8; a++)
            if (fc->comm[c][a] != MPI_COMM_NULL)
                MPI_Comm_free(&fc->comm[c][a]);
    free(fc);
    return MPI_SUCCESS;
}

/* The value coll_tuned_<coll>_algorithm gives to the algorithm called `name`, from the
 * variable's MPI_T enumeration; -1 if the library has no such name. */
static int ompi_value_of(int index, const char *name)
{
    char vname[256], desc[16];
    int nlen = sizeof vname, dlen = sizeof desc, verbosity, bind, scope, items;
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(index, vname, &nlen, &verbosity, &type, &enumtype, desc, &dlen, &bind,
                            &scope) != MPI_SUCCESS || enumtype == MPI_T_ENUM_NULL)
        return -1;
    char ename[128];
    int elen = sizeof ename;
    if (MPI_T_enum_get_info(enumtype, &items, ename, &elen) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < items; i++) {
        int value;
        char item[128];
        int ilen = sizeof item;
        if (MPI_T_enum_get_item(enumtype, i, &value, item, &ilen) == MPI_SUCCESS &&
            strcmp(item, name) == 0)
            return value;
    }
    return -1;
}

/* Guarantees: f->comm runs `algorithm` (see vendor_force.h). */
static int force_open_mpi(MPI_Comm comm, int alltoallv, int algorithm, const char *name,
                          a2a_vendor_forcing *f)
{
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_forced, &keyval, NULL) != MPI_SUCCESS)
        return MPI_ERR_INTERN;
    forced_comms *fc;
    int found;
    MPI_Comm_get_attr(comm, keyval, &fc, &found);
    if (found && fc->comm[alltoallv][algorithm] != MPI_COMM_NULL) {
        f->comm = fc->comm[alltoallv][algorithm];
        return MPI_SUCCESS;
    }
    const char *var = alltoallv ? "coll_tuned_alltoallv_algorithm" : "coll_tuned_alltoall_algorithm";
    MPI_T_cvar_handle rules, forced;
    int rules_index, forced_index, dynamic = 0, saved, value;
    if (cvar_open("coll_tuned_use_dynamic_rules", &rules, &rules_index) != 0 ||
        cvar_open(var, &forced, &forced_index) != 0) {
        complain(comm, "vendor_algorithm: Open MPI's coll/tuned component is not there "
                       "(no MPI_T variable %s)", var);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    cvar_read(rules, &dynamic);
    MPI_T_cvar_handle_free(&rules);
    if (!dynamic) {
        MPI_T_cvar_handle_free(&forced);
        complain(comm, "vendor_algorithm %d (%s) needs coll_tuned_use_dynamic_rules = 1 at "
                       "MPI_Init (call A2A_Vendor_prepare before MPI_Init, set "
                       "OMPI_MCA_coll_tuned_use_dynamic_rules=1 or pass --mca "
                       "coll_tuned_use_dynamic_rules 1)", algorithm, name);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if ((value = ompi_value_of(forced_index, name)) < 0) {
        MPI_T_cvar_handle_free(&forced);
        complain(comm, "vendor_algorithm %d: this Open MPI has no %s algorithm '%s'", algorithm,
                 alltoallv ? "alltoallv" : "alltoall", name);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    int rc = MPI_ERR_INTERN;
    if (cvar_read(forced, &saved) == 0 && MPI_T_cvar_write(forced, &value) == MPI_SUCCESS) {
        MPI_Comm dup;
        rc = MPI_Comm_dup(comm, &dup);
        MPI_T_cvar_write(forced, &saved);
        if (rc == MPI_SUCCESS) {
            if (!found) {
                fc = malloc(sizeof *fc);
                if (!fc) {
                    MPI_Comm_free(&dup);
                    MPI_T_cvar_handle_free(&forced);
                    return MPI_ERR_NO_MEM;
                }
                for (int c = 0; c < 2; c++)
                    for (int a = 0; a < 8; a++)
                        fc->comm[c][a] = MPI_COMM_NULL;
                MPI_Comm_set_attr(comm, keyval, fc);
            }
            fc->comm[alltoallv][algorithm] = dup;
            f->comm = dup;
        }
    }
    MPI_T_cvar_handle_free(&forced);
    return rc;
}
#endif

#ifdef MPICH
/* The value of MPICH's enum control variable `index` called `name`: its position among
 * the "<name> - <text>" entries of the variable's description; -1 if absent. */
static int mpich_value_of(int index, const char *name)
{
    char vname[256], desc[4096];
    int nlen = sizeof vname, dlen = sizeof desc, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_info(index, vname, &nlen, &verbosity, &type, &enumtype, desc, &dlen, &bind,
                            &scope) != MPI_SUCCESS)
        return -1;
    size_t n = strlen(name);
    int position = 0;
    for (const char *sep = strstr(desc, " - "); sep; sep = strstr(sep + 3, " - "), position++) {
        const char *end = sep; /* the entry's name ends before the padding */
        while (end > desc && end[-1] == ' ')
            end--;
        /* the text of the previous entry runs into the name ("algorithmnb"), so the name
         * is a suffix; a longer name ending the same way ("k_brucks") has '_' before it */
        if ((size_t)(end - desc) >= n && strncmp(end - n, name, n) == 0 &&
            (end - n == desc || end[-(long)n - 1] != '_'))
            return position;
    }
    return -1;
}

/* MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM [0] and MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM [1]:
 * handles, and the value of each of our algorithm numbers (-1: not in this MPICH). */
static MPI_T_cvar_handle mpich_handle[2];
static int mpich_value[2][8], mpich_ready[2];

/* Guarantees: the algorithm's cvar value is set until a2a_vendor_force_end. */
static int force_mpich(MPI_Comm comm, int alltoallv, int algorithm, const char *name,
                       a2a_vendor_forcing *f)
{
    const char *var = alltoallv ? "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM"
                                : "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM";
    if (!mpich_ready[alltoallv]) {
        int index;
        if (cvar_open(var, &mpich_handle[alltoallv], &index) != 0) {
            complain(comm, "vendor_algorithm: this MPICH has no MPI_T variable %s", var);
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        for (int a = 1; a <= max_algorithm[alltoallv]; a++)
            mpich_value[alltoallv][a] = mpich_value_of(index, A2A_Vendor_algorithm_name(alltoallv, a));
        mpich_ready[alltoallv] = 1;
    }
    if (mpich_value[alltoallv][algorithm] < 0) {
        complain(comm, "vendor_algorithm %d: %s of this MPICH has no algorithm '%s'", algorithm,
                 var, name);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (cvar_read(mpich_handle[alltoallv], &f->saved) != 0 ||
        MPI_T_cvar_write(mpich_handle[alltoallv], &mpich_value[alltoallv][algorithm]) != MPI_SUCCESS)
        return MPI_ERR_INTERN;
    f->restore = 1;
    f->cvar = alltoallv;
    return MPI_SUCCESS;
}
#endif

/* Guarantees: see vendor_force.h. */
int a2a_vendor_force_begin(MPI_Comm comm, int alltoallv, int algorithm, a2a_vendor_forcing *f)
{
    int P;
    alltoallv = alltoallv != 0;
    f->comm = comm;
    f->restore = 0;
    MPI_Comm_size(comm, &P);
    const char *name = A2A_Vendor_algorithm_name(alltoallv, algorithm);
    if (algorithm == 0)
        return MPI_SUCCESS;
    if (!name || !A2A_Vendor_algorithm_valid(alltoallv, algorithm, P))
        return MPI_ERR_ARG;
#if defined(OPEN_MPI)
    return force_open_mpi(comm, alltoallv, algorithm, name, f);
#elif defined(MPICH)
    return force_mpich(comm, alltoallv, algorithm, name, f);
#else
    complain(comm, "vendor_algorithm: forcing is implemented for Open MPI and MPICH only");
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

/* Guarantees: the MPICH cvar is back to its value before a2a_vendor_force_begin. */
int a2a_vendor_force_end(a2a_vendor_forcing *f)
{
#ifdef MPICH
    if (f->restore && MPI_T_cvar_write(mpich_handle[f->cvar], &f->saved) != MPI_SUCCESS)
        return MPI_ERR_INTERN;
#endif
    f->restore = 0;
    return MPI_SUCCESS;
}
