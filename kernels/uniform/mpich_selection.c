/* mpich_selection.c — MPI_Alltoall as MPICH 4 selects it (Cray MPICH derives from it),
 * run on liba2a's kernels: Bruck, scattered or pairwise by block size and P. The
 * thresholds and their comparisons are documented with their constants in a2a.h. */
#include "kernel_util.h"
#include "mpich_throttle.h"

/* MPICH's branches, in the order it tests them. */
typedef enum mpich_branch { MPICH_NONE, MPICH_BRUCKS, MPICH_SCATTERED, MPICH_PAIRWISE } mpich_branch;

/* Guarantees: MPICH's branch for (P, block_bytes): none for 0 bytes (MPICH returns at
 * once), brucks for block_bytes <= SHORT_MSG_SIZE at P >= 8, scattered up to
 * MEDIUM_MSG_SIZE, pairwise above. */
static mpich_branch mpich_branch_of(int P, long long block_bytes)
{
    if (block_bytes == 0)
        return MPICH_NONE;
    if (block_bytes <= A2A_MPICH_ALLTOALL_SHORT_MSG_SIZE && P >= A2A_MPICH_ALLTOALL_BRUCK_MIN_P)
        return MPICH_BRUCKS;
    if (block_bytes <= A2A_MPICH_ALLTOALL_MEDIUM_MSG_SIZE)
        return MPICH_SCATTERED;
    return MPICH_PAIRWISE;
}

/* Guarantees: the branch of mpich_branch_of, named, with the liba2a kernel that runs it
 * (scattered with block_count = the throttle; pairwise_xor for MPICH's pairwise). */
a2a_vendor_choice A2A_Alltoall_mpich_selection_choice(int P, long long block_bytes)
{
    switch (mpich_branch_of(P, block_bytes)) {
    case MPICH_BRUCKS: return (a2a_vendor_choice){ "brucks", "bruck", 0 };
    case MPICH_SCATTERED:
        return (a2a_vendor_choice){ "scattered", "scattered", a2a_mpich_throttle(P) };
    case MPICH_PAIRWISE: return (a2a_vendor_choice){ "pairwise", "pairwise_xor", 0 };
    default: return (a2a_vendor_choice){ "none", NULL, 0 };
    }
}

/* Guarantees: the MPI_Alltoall result, by the kernel A2A_Alltoall_mpich_selection_choice
 * names for this P and the bytes of one block (scount * size of stype, the same on every
 * rank of a correct call, so every rank takes the same branch); nothing is sent when a
 * block has 0 bytes. The chosen kernel's own checks and stats apply. MPI_ERR_COMM for an
 * intercommunicator. */
int A2A_Alltoall_mpich_selection(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                 int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                 a2a_stats *stats)
{
    int rank, size, err, type_bytes;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    MPI_Type_size(stype, &type_bytes);
    switch (mpich_branch_of(size, (long long)scount * type_bytes)) {
    case MPICH_BRUCKS:
        return A2A_Alltoall_bruck(sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    case MPICH_SCATTERED:
        return A2A_Alltoall_scattered(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                                      a2a_mpich_throttle(size), stats);
    case MPICH_PAIRWISE:
        return A2A_Alltoall_pairwise_xor(sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    default:
        return MPI_SUCCESS;
    }
}
