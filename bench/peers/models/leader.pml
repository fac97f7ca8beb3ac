/* Chang and Roberts' leader election on a unidirectional ring of N
   nodes with buffered channels (ring[i] leads into node i). Node i has
   the identity ID(i); it sends it once, forwards a greater identity,
   drops a smaller one and is elected when its own comes back. Every
   rule of every node is a process of its own whose provided clause is
   the rule's guard, looping on one d_step that starts with the rule's
   channel operation (if any). */
#ifndef N
#define N 3
#endif
#define ID(i) ((2 * (i)) % N + 1)
#define NEXT(i) (((i) + 1) % N)
chan ring[N] = [2] of {byte};
bool started[N];
byte inbox[N];   /* 0: empty */
byte leader = 0; /* 0: none; else the elected node + 1 */

/* pids: start 0..N-1, recv N..2N-1, fwd 2N..3N-1, win 3N..4N-1, drop 4N..5N-1 */
active [N] proctype start() provided (!started[_pid]) {
end:	do :: d_step { ring[NEXT(_pid)]!ID(_pid); started[_pid] = true } od
}
#define R (_pid - N)
active [N] proctype recv() provided (inbox[R] == 0) {
end:	do :: d_step { ring[R]?inbox[R] } od
}
#define F (_pid - 2 * N)
active [N] proctype fwd() provided (inbox[F] > ID(F)) {
end:	do :: d_step { ring[NEXT(F)]!inbox[F]; inbox[F] = 0 } od
}
#define W (_pid - 3 * N)
active [N] proctype win() provided (inbox[W] != 0 && inbox[W] == ID(W)) {
end:	do :: d_step { leader = W + 1; inbox[W] = 0 } od
}
#define D (_pid - 4 * N)
active [N] proctype drop() provided (inbox[D] != 0 && inbox[D] < ID(D)) {
end:	do :: d_step { inbox[D] = 0 } od
}

/* SPIN leaves a global variable that no statement reads out of the state
   vector (pan.h: "hidden variable"), so that states differing only in it
   would be one: this rule reads leader and never fires. */
active proctype reads() {
end:	do :: d_step { (leader == 255) -> skip } od
}
