/* private_comm.c — a private duplicate of each communicator for the kernels (see
 * private_comm.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "private_comm.h"

/* On a user communicator: its private_set. On a duplicate: a marker. On MPI_COMM_SELF:
 * the finalize hook, whose deletion opens MPI_Finalize. */
static int dup_keyval = MPI_KEYVAL_INVALID;
static int mark_keyval = MPI_KEYVAL_INVALID;
static int hook_keyval = MPI_KEYVAL_INVALID;
static int setup_err = MPI_SUCCESS;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

/* The duplicates of one communicator, indexed by rank in it (Fortran handles). A process
 * of a real MPI library fills only its own slot. SimGrid's SMPI runs every rank in one
 * process and gives them one shared MPI_COMM_WORLD object, attributes included: there
 * each rank fills its slot of the one set, and `users` counts the slots filled. */
typedef struct private_set {
    int size, users;
    MPI_Fint dup[];
} private_set;
/* Set when MPI_Finalize starts (MPI_COMM_SELF's attributes are deleted first, while MPI
 * is fully usable). After that, delete callbacks run while MPI tears its communicators
 * down (MPI_COMM_WORLD, communicators never freed), where freeing a communicator is not
 * safe: MPI then releases the duplicates itself. */
static volatile int finalizing = 0;

/* Guarantees: when comm is freed (by the application, or by MPI at MPI_Finalize before
 * it starts tearing down), its private duplicate is freed too; during the teardown the
 * duplicate is left to MPI. */
static int delete_private(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval;
    (void)extra;
    private_set *set = value;
    int err = MPI_SUCCESS, rank = -1;
    if (!finalizing && MPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank >= 0 &&
        rank < set->size && set->dup[rank] != MPI_Comm_c2f(MPI_COMM_NULL)) {
        MPI_Comm dup = MPI_Comm_f2c(set->dup[rank]);
        set->dup[rank] = MPI_Comm_c2f(MPI_COMM_NULL);
        err = MPI_Comm_free(&dup);
    }
    if (--set->users <= 0)
        free(set);
    return err;
}

/* Guarantees: records that MPI_Finalize has begun (see `finalizing`). */
static int delete_hook(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    finalizing = 1;
    return MPI_SUCCESS;
}

/* Guarantees: the three keyvals exist and the finalize hook is set on MPI_COMM_SELF, or
 * setup_err holds the MPI error. Runs once per process. Attributes are not copied by
 * MPI_Comm_dup (MPI_COMM_NULL_COPY_FN): a user's duplicate gets its own private one. */
static void setup(void)
{
    int err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &dup_keyval, NULL);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                     &mark_keyval, NULL);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_hook, &hook_keyval, NULL);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_attr(MPI_COMM_SELF, hook_keyval, NULL);
    setup_err = err;
}

/* Guarantees: see private_comm.h. */
MPI_Comm a2a_private_comm(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return comm;
    pthread_once(&setup_once, setup);
    if (setup_err != MPI_SUCCESS)
        return comm;
    void *value = NULL;
    int found = 0, rank, size;
    if (MPI_Comm_get_attr(comm, mark_keyval, &value, &found) != MPI_SUCCESS)
        return comm;
    if (found)
        return comm; /* already private */
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return comm;
    if (MPI_Comm_get_attr(comm, dup_keyval, &value, &found) != MPI_SUCCESS)
        return comm;
    private_set *set = found ? value : NULL;
    if (set && set->dup[rank] != MPI_Comm_c2f(MPI_COMM_NULL))
        return MPI_Comm_f2c(set->dup[rank]);
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        return comm;
    if (MPI_Comm_set_attr(dup, mark_keyval, (void *)(intptr_t)1) != MPI_SUCCESS)
        goto fail;
    /* look again: under SMPI another rank may have made the shared set meanwhile */
    if (MPI_Comm_get_attr(comm, dup_keyval, &value, &found) != MPI_SUCCESS)
        goto fail;
    set = found ? value : NULL;
    if (!set) {
        set = malloc(sizeof *set + (size_t)size * sizeof set->dup[0]);
        if (!set)
            goto fail;
        set->size = size;
        set->users = 0;
        for (int i = 0; i < size; i++)
            set->dup[i] = MPI_Comm_c2f(MPI_COMM_NULL);
        if (MPI_Comm_set_attr(comm, dup_keyval, set) != MPI_SUCCESS) {
            free(set);
            goto fail;
        }
    }
    set->dup[rank] = MPI_Comm_c2f(dup);
    set->users++;
    return dup;
fail:
    MPI_Comm_free(&dup);
    return comm;
}
