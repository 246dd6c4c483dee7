/* private_comm.c — a private duplicate of each communicator for the kernels (see
 * private_comm.h). */
#include <pthread.h>
#include <stdint.h>

#include "private_comm.h"

/* On a user communicator: the Fortran handle of its private duplicate (handles, not
 * pointers, so nothing is allocated). On a duplicate: a marker. On MPI_COMM_SELF: the
 * finalize hook, whose deletion opens MPI_Finalize. */
static int dup_keyval = MPI_KEYVAL_INVALID;
static int mark_keyval = MPI_KEYVAL_INVALID;
static int hook_keyval = MPI_KEYVAL_INVALID;
static int setup_err = MPI_SUCCESS;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

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
    (void)comm;
    (void)keyval;
    (void)extra;
    if (finalizing)
        return MPI_SUCCESS;
    MPI_Comm dup = MPI_Comm_f2c((MPI_Fint)(intptr_t)value);
    if (dup == MPI_COMM_NULL)
        return MPI_SUCCESS;
    return MPI_Comm_free(&dup);
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
    int found = 0;
    if (MPI_Comm_get_attr(comm, mark_keyval, &value, &found) != MPI_SUCCESS)
        return comm;
    if (found)
        return comm; /* already private */
    if (MPI_Comm_get_attr(comm, dup_keyval, &value, &found) != MPI_SUCCESS)
        return comm;
    if (found)
        return MPI_Comm_f2c((MPI_Fint)(intptr_t)value);
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        return comm;
    if (MPI_Comm_set_attr(dup, mark_keyval, (void *)(intptr_t)1) != MPI_SUCCESS ||
        MPI_Comm_set_attr(comm, dup_keyval, (void *)(intptr_t)MPI_Comm_c2f(dup)) != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return comm;
    }
    return dup;
}
