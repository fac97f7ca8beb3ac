// The peer of haddad_monmege.wrap: a walk on -N..N from 0, back towards
// 0 with probability p, until an end; the answer is 1/2.
dtmc

const int N = 20;
const double p = 7/10;

module walk
  x : [-N..N] init 0;
  [] x=0 -> 1/2 : (x'=1) + 1/2 : (x'=-1);
  [] x>0 & x<N -> p : (x'=x-1) + (1-p) : (x'=x+1);
  [] x<0 & x>-N -> p : (x'=x+1) + (1-p) : (x'=x-1);
  [] x=N | x=-N -> true;
endmodule
