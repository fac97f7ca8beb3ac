/* Chang and Roberts' leader election on a unidirectional ring of N
   nodes joined by rendezvous channels (ring[i] leads into node i). Every
   rule is a process of its own whose provided clause is the rule's
   guard. A rendezvous is one step: the sending rule only sends, and the
   receiving rule, a d_step that starts with the receive, also does the
   sender's part, which the message's first field names (START: node P
   has started; FWD: node P's inbox is free again, P the node before). */
#ifndef N
#define N 3
#endif
#define ID(i) ((2 * (i)) % N + 1)
#define NEXT(i) (((i) + 1) % N)
#define PREV(i) (((i) + N - 1) % N)
mtype = {START, FWD};
chan ring[N] = [0] of {mtype, byte};
bool started[N];
byte inbox[N];   /* 0: empty */
byte leader = 0; /* 0: none; else the elected node + 1 */

/* pids: start 0..N-1, recv N..2N-1, fwd 2N..3N-1, win 3N..4N-1, drop 4N..5N-1 */
active [N] proctype start() provided (!started[_pid]) {
end:	do :: ring[NEXT(_pid)]!START,ID(_pid) od
}
#define R (_pid - N)
active [N] proctype recv() provided (inbox[R] == 0) {
	mtype k;
end:	do
	:: d_step { ring[R]?k,inbox[R];
		if :: k == START -> started[PREV(R)] = true
		   :: else -> inbox[PREV(R)] = 0
		fi; k = 0 }
	od
}
#define F (_pid - 2 * N)
active [N] proctype fwd() provided (inbox[F] > ID(F)) {
end:	do :: ring[NEXT(F)]!FWD,inbox[F] od
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
