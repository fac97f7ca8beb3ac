/* A reduced bounded retransmission protocol: the sender transmits a file
   of NF frames over the lossy one-place channel K, each frame with its
   first and last flags and an alternating bit, and waits for the
   acknowledgement over the lossy one-place channel L; when both channels
   are empty and the receiver owes no acknowledgement (the frame or its
   acknowledgement was lost: the timer outlasts a round trip) it retransmits,
   at most MAX times per frame, then gives up (result NOK); after the
   last acknowledgement the result is OK. Every rule is a process of its
   own whose provided clause is its guard, looping on one d_step that
   starts with the rule's channel operation, if any. */
#ifndef NF
#define NF 2
#endif
#ifndef MAX
#define MAX 1
#endif
#ifdef EARLY
#define OWED false /* the timer may expire while the receiver owes the ack */
#else
#define OWED pending
#endif
chan K = [1] of {bool, bool, bit}; /* first, last, bit */
chan L = [1] of {bool};
byte i = 0;        /* the frame being sent, NF when done */
byte rc = 0;       /* retransmissions of frame i */
bit sb = 0;        /* the sender's bit */
bool waiting = false;
byte result = 0;   /* 0 none, 1 OK, 2 NOK */
bit rb = 0;        /* the bit the receiver expects */
bool ff, fl; bit fb; /* the last frame received */
bool pending = false; /* the receiver owes an acknowledgement */
byte got = 0;      /* frames delivered */

active proctype send() provided (i < NF && !waiting) {
end:	do :: d_step { K!(i == 0),(i == NF - 1),sb; waiting = true } od
}
active proctype getack() provided (waiting) {
end:	do
	:: d_step { L?true; waiting = false; rc = 0; sb = 1 - sb; i++;
		if :: i == NF -> result = 1 :: else -> skip fi }
	od
}
active proctype retry() provided (waiting && len(K) == 0 && len(L) == 0 && !OWED && rc < MAX) {
end:	do :: d_step { rc++; waiting = false } od
}
active proctype giveup() provided (waiting && len(K) == 0 && len(L) == 0 && !OWED && rc == MAX) {
end:	do :: d_step { waiting = false; result = 2; i = NF } od
}
active proctype recv() provided (!pending) {
end:	do
	:: d_step { K?ff,fl,fb; pending = true;
		if :: fb == rb -> rb = 1 - rb; got++ :: else -> skip fi }
	od
}
active proctype ack() provided (pending) {
end:	do :: d_step { L!true; pending = false } od
}
/* the channels lose messages */
active proctype loseK() {
end:	do
	:: d_step { K?_,_,_ }
	od
}
active proctype loseL() {
end:	do :: d_step { L?_ } od
}

/* SPIN leaves a global variable that no statement reads out of the state
   vector (pan.h: "hidden variable"), so that states differing only in it
   would be one: this rule reads them and never fires. */
active proctype reads() {
end:	do :: d_step { (result == 255 && ff && fl && got == 255) -> skip } od
}
