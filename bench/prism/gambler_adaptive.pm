// The peer of gambler_adaptive.wrap: the coin, then the stake.
mdp

formula bstake = money<=2 ? money : 4-money;

module gambler
  money : [0..4] init 2;
  flipped : bool init false;
  heads : bool init false;
  [flip]  !flipped & money>0 & money<4 -> 1/3 : (heads'=true) & (flipped'=true) + 2/3 : (heads'=false) & (flipped'=true);
  [bold]  flipped -> (money'=heads ? money+bstake : money-bstake) & (flipped'=false);
  [timid] flipped -> (money'=heads ? money+1 : money-1) & (flipped'=false);
  [] !flipped & (money=0 | money=4) -> true;
endmodule
