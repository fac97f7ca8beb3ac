/* Producer and consumers over a bounded buffer: every rule is a process
   of its own whose provided clause is the rule's guard, looping on one
   d_step, so that no program counter differs between two states. */
#ifndef N
#define N 3
#endif
chan buf = [N] of {byte};
byte nxt = 0;   /* the next item, 0..2 */
byte last = 0;  /* the last item taken */
byte taken = 0; /* items taken by get, 0..3 */

active proctype put() {
end:	do
	:: d_step { buf!nxt; nxt = (nxt + 1) % 3 }
	od
}
active proctype get() provided (taken < 3) {
end:	do
	:: d_step { buf?last; taken++ }
	od
}
active proctype dropzero() {
end:	do
	:: d_step { buf?0; taken = 0 }
	od
}

/* SPIN leaves a global variable that no statement reads out of the state
   vector (pan.h: "hidden variable"), so that states differing only in it
   would be one: this rule reads last and never fires. */
active proctype reads() {
end:	do :: d_step { (last == 255) -> skip } od
}
