// The peer of coin.wrap: the shared coin of Aspnes and Herlihy's
// randomised consensus, N = 2 processes, K = 2 (after PRISM's coin case
// study; a finished process is idle rather than looping).
mdp

const int N = 2;
const int K = 2;
const int range = 2*(K+1)*N;
const int left = N;
const int right = 2*(K+1)*N - N;

global counter : [0..range] init (K+1)*N;

module process0
  pc0 : [0..3] init 0; // 0 flip, 1 write, 2 check, 3 finished
  coin0 : [0..1] init 0;
  [] pc0=0 -> 1/2 : (coin0'=0) & (pc0'=1) + 1/2 : (coin0'=1) & (pc0'=1);
  [] pc0=1 & coin0=0 & counter>0 -> (counter'=counter-1) & (pc0'=2) & (coin0'=0);
  [] pc0=1 & coin0=1 & counter<range -> (counter'=counter+1) & (pc0'=2) & (coin0'=0);
  [] pc0=2 & counter<=left -> (pc0'=3) & (coin0'=0);
  [] pc0=2 & counter>=right -> (pc0'=3) & (coin0'=1);
  [] pc0=2 & counter>left & counter<right -> (pc0'=0);
endmodule

module process1 = process0 [pc0=pc1, coin0=coin1] endmodule

label "finished" = pc0=3 & pc1=3;

rewards "steps"
  !(pc0=3 & pc1=3) : 1;
endrewards
