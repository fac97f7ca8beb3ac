/* The alternating-bit protocol over two lossy one-place channels. Every
   rule is a process of its own (its guard, where it has one, in its
   provided clause) looping on one d_step, so no program counter differs
   between two states; the channel operation is the d_step's first
   statement, so the rule is enabled exactly when it can take place. */
chan dc = [1] of {byte, bit}; /* data frames: (data, bit) */
chan ac = [1] of {bit};       /* acknowledgements */
bit sb;       /* the sender's bit */
byte sd;      /* the sender's data, 0..2 */
bit rb;       /* the bit the receiver expects */
byte out;     /* the last data delivered */
byte frd; bit frb; /* the last frame received */
bit ab;       /* the last acknowledgement received */

active proctype send() {
end:	do :: d_step { dc!sd,sb } od
}
active proctype getack() {
end:	do
	:: d_step { ac?ab; if :: ab == sb -> sb = 1 - sb; sd = (sd + 1) % 3 :: else -> skip fi }
	od
}
active proctype recv() {
end:	do
	:: d_step { dc?frd,frb; if :: frb == rb -> out = frd; rb = 1 - rb :: else -> skip fi }
	od
}
active proctype ack() {
end:	do :: d_step { ac!1 - rb } od
}
/* the channels lose messages: a frame or an acknowledgement vanishes */
active proctype lose00() { end: do :: d_step { dc?0,0 } od }
active proctype lose01() { end: do :: d_step { dc?0,1 } od }
active proctype lose10() { end: do :: d_step { dc?1,0 } od }
active proctype lose11() { end: do :: d_step { dc?1,1 } od }
active proctype lose20() { end: do :: d_step { dc?2,0 } od }
active proctype lose21() { end: do :: d_step { dc?2,1 } od }
active proctype losea0() { end: do :: d_step { ac?0 } od }
active proctype losea1() { end: do :: d_step { ac?1 } od }

/* SPIN leaves a global variable that no statement reads out of the state
   vector (pan.h: "hidden variable"), so that states differing only in it
   would be one: this rule reads out and never fires. */
active proctype reads() {
end:	do :: d_step { (out == 255) -> skip } od
}
