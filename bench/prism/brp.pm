// The peer of brp.wrap: the bounded retransmission protocol, N chunks,
// at most MAX retries of each; channel K loses a frame with 2/100,
// channel L an acknowledgement with 1/100. Each synchronised command is
// one step, as each action of brp.wrap is.
dtmc

const int N = 16;
const int MAX = 2;

module sender
  // 0 idle, 1 next frame, 2 wait for the ack, 3 retransmit, 4 success,
  // 5 error, 6 wait for the sync
  s : [0..6] init 0;
  // 0 none, 1 not ok, 2 don't know, 3 ok
  srep : [0..3] init 0;
  nrtr : [0..MAX] init 0;
  i : [0..N] init 0;
  bs : bool init false;
  s_ab : bool init false;
  fs : bool init false;
  ls : bool init false;

  [new_file] s=0 -> (s'=1) & (i'=1) & (srep'=0);
  [send] s=1 -> (s'=2) & (nrtr'=0) & (fs'=(i=1)) & (ls'=(i=N)) & (bs'=s_ab);
  [send] s=3 & nrtr<MAX -> (s'=2) & (nrtr'=nrtr+1) & (fs'=(i=1)) & (ls'=(i=N)) & (bs'=s_ab);
  [acked] s=2 -> (s'=4) & (s_ab'=!s_ab);
  [frame_lost] s=2 -> (s'=3);
  [ack_lost] s=2 -> (s'=3);
  [] s=3 & nrtr=MAX -> (s'=5) & (srep'=(i<N ? 1 : 2));
  [] s=4 & i<N -> (s'=1) & (i'=i+1);
  [] s=4 & i=N -> (s'=0) & (srep'=3);
  [sync] s=5 -> (s'=6);
  [sync] s=6 -> (s'=0) & (s_ab'=false);
endmodule

module receiver
  // 0 new file, 1 first safe frame, 2 frame received, 3 frame reported,
  // 4 idle, 5 resync
  r : [0..5] init 0;
  // 0 none, 1 first, 2 middle, 3 last, 4 not ok
  rrep : [0..4] init 0;
  fr : bool init false;
  lr : bool init false;
  br : bool init false;
  r_ab : bool init false;
  recv : bool init false;

  [sync] r=0 -> true;
  [deliver] r=0 -> (r'=1) & (fr'=fs) & (lr'=ls) & (br'=bs) & (recv'=T);
  [] r=1 -> (r'=2) & (r_ab'=br);
  [] r=2 & r_ab=br & !(fr & lr) -> (r'=3) & (rrep'=(fr ? 1 : (lr ? 3 : 2)));
  [ack] r=2 & r_ab!=br -> (r'=4);
  [ack] r=3 -> (r'=4) & (r_ab'=!r_ab);
  [deliver] r=4 -> (r'=2) & (fr'=fs) & (lr'=ls) & (br'=bs) & (recv'=T);
  [sync] r=4 -> (r'=5) & (rrep'=(ls ? rrep : 4));
  [sync] r=5 -> (r'=0) & (rrep'=0);
endmodule

// one file only
module file
  T : bool init false;
  [new_file] !T -> (T'=true);
endmodule

// 0 idle, 1 carrying, 2 lost
module channel_k
  k : [0..2] init 0;
  [send] k=0 -> 98/100 : (k'=1) + 2/100 : (k'=2);
  [deliver] k=1 -> (k'=0);
  [frame_lost] k=2 -> (k'=0);
endmodule

module channel_l
  l : [0..2] init 0;
  [ack] l=0 -> 99/100 : (l'=1) + 1/100 : (l'=2);
  [acked] l=1 -> (l'=0);
  [ack_lost] l=2 -> (l'=0);
endmodule
