// The peer of leader_sync.wrap: synchronous leader election at the level
// of rounds, N = 3 processes drawing ids from 1..K = 3.
dtmc

const int K = 3;

formula top = id0>=id1 & id0>=id2 ? id0 : (id1>=id2 ? id1 : id2);
formula elected = (id0=top?1:0) + (id1=top?1:0) + (id2=top?1:0) = 1;

module process0
  id0 : [1..K] init 1;
  [round] !elected -> 1/3 : (id0'=1) + 1/3 : (id0'=2) + 1/3 : (id0'=3);
endmodule

// Written out rather than renamed: renaming would rename id0 inside the
// formula elected too.
module process1
  id1 : [1..K] init 1;
  [round] !elected -> 1/3 : (id1'=1) + 1/3 : (id1'=2) + 1/3 : (id1'=3);
endmodule

module process2
  id2 : [1..K] init 1;
  [round] !elected -> 1/3 : (id2'=1) + 1/3 : (id2'=2) + 1/3 : (id2'=3);
endmodule

label "elected" = elected;

rewards "rounds"
  [round] true : 1;
endrewards
