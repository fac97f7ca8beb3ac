/* A rendezvous pipeline: a source hands items 0..2 to stage 0 over
   c[0], stage i hands its item to stage i+1 over c[i+1], the sink takes
   the last stage's. Every rule is a process of its own whose provided
   clause is its guard. A rendezvous is one step: SPIN stores no state
   between the send and the receive. The sending side has no effect of
   its own: the receiving rule also does the sender's part (the sender
   of each channel is unique). */
#ifndef S
#define S 3
#endif
chan c[S+1] = [0] of {byte};
byte nxt = 0;     /* the source's next item */
byte item[S];     /* the item each stage holds */
bool busy[S];
byte got = 0;     /* items the sink took, 0..3 */
byte last = 0;    /* the last item the sink took */

active proctype src() {
end:	do
	:: c[0]!nxt
	od
}
active [S] proctype fwd() provided (busy[_pid - 1]) {
end:	do
	:: c[_pid]!item[_pid - 1]
	od
}
/* stage i receives from c[i]: the receiving rule of stage 0 also
   advances the source, that of stage i > 0 empties stage i-1 */
active proctype take0() provided (!busy[0]) {
end:	do
	:: d_step { c[0]?item[0]; busy[0] = true; nxt = (nxt + 1) % 3 }
	od
}
/* pids: src 0, fwd 1..S, take0 S+1, take S+2..2S, sink 2S+1 */
#define ST (_pid - S - 1)
active [S-1] proctype take() provided (!busy[ST]) {
end:	do
	:: d_step { c[ST]?item[ST]; busy[ST] = true; busy[ST - 1] = false }
	od
}
active proctype sink() provided (got < 3) {
end:	do
	:: d_step { c[S]?last; got++; busy[S-1] = false }
	od
}

/* SPIN leaves a global variable that no statement reads out of the state
   vector (pan.h: "hidden variable"), so that states differing only in it
   would be one: this rule reads last and never fires. */
active proctype reads() {
end:	do :: d_step { (last == 255) -> skip } od
}
