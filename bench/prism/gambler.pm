// The peer of gambler.wrap: bold or timid stakes on a coin of 1/3.
mdp

formula bstake = money<=2 ? money : 4-money;

module gambler
  money : [0..4] init 2;
  [bold]  money>0 & money<4 -> 1/3 : (money'=money+bstake) + 2/3 : (money'=money-bstake);
  [timid] money>0 & money<4 -> 1/3 : (money'=money+1) + 2/3 : (money'=money-1);
  [] money=0 | money=4 -> true;
endmodule
