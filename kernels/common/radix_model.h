/* radix_model.h — the K/D model of tunable-radix all-to-all (TRA paper, Section III-A).
 *
 * For P processes and radix r the block indices 0..P-1 are written with
 * w = ceil(log_r P) base-r digits. Round (x, z), 0 <= x < w, 1 <= z < r, carries every
 * block whose digit x equals z. Rounds that would carry no block are not taken.
 *   K = number of rounds taken            (Propositions 1 and 3)
 *   D = blocks one process sends in total (Propositions 2 and 4)
 * Every process sends the same number of blocks, so K and D hold for each rank.
 * Pure integer arithmetic, overflow-free for all P >= 1, r >= 2 with r * P < 2^63.
 */
#ifndef A2A_RADIX_MODEL_H
#define A2A_RADIX_MODEL_H

/* Number of base-r digits w = ceil(log_r P): 0 for P <= 1, 1 when 2 <= P <= r.
 * Returns -1 when r < 2 and P > 1 (no such encoding). */
int a2a_model_digits(long long P, long long r);

/* Blocks sent in round (x, z) (Proposition 4's h): how many i in [0, P) have base-r
 * digit x equal to z. 0 when x or z is out of range or P <= 1; -1 when r < 2. */
long long a2a_model_round_blocks(long long P, long long r, int x, long long z);

/* K: rounds in which a process sends at least one block (Propositions 1 and 3).
 * 0 for P <= 1, P - 1 for r >= P; -1 when r < 2 and P > 1. */
long long a2a_model_rounds(long long P, long long r);

/* D: total blocks a process sends over all rounds (Propositions 2 and 4), a forwarded
 * block counted each time it is sent. 0 for P <= 1, P - 1 for r >= P; -1 when r < 2
 * and P > 1. */
long long a2a_model_blocks(long long P, long long r);

#endif
